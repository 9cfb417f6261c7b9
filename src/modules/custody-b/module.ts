import type { BastionModule, Platform } from '../../platform/module/module.js';
import type { EvmChainPort } from '../../providers/evm-chain/port.js';
import type { XrplLedgerPort } from '../../providers/xrpl-ledger/port.js';
import { createCustodyBAdapter } from '../../providers/custody-b/http.js';
import type { CustodyBPort } from '../../providers/custody-b/port.js';
import { createCustodyBSandbox, type CustodyBSandbox } from '../../providers/custody-b/sandbox/plugin.js';
import type { AuditService } from '../audit/service.js';
import type { UsersService } from '../users/service.js';
import type { WalletsService } from '../wallets/service.js';
import { createCustodyBRepo } from './repo.js';
import { custodyBRoutes } from './routes.js';
import { createCustodyBService, CUSTODY_B, CUSTODY_KIND, type CustodyBService } from './service.js';

export interface CustodyBServices {
  custodyB: CustodyBService;
  /** The built-in provider (tests drive it with the provider's SDK). */
  custodyBSandbox: CustodyBSandbox;
}

/**
 * Delegated custody through the custody-b provider (Dfns's protocol): the user registers a
 * credential with the provider, and every wallet creation and signature is a user action the
 * user's credential signs. The built-in sandbox is every tenant's provider until configured.
 */
export function createCustodyBModule(
  platform: Platform,
  deps: { users: UsersService; audit: AuditService; wallets: WalletsService; evmChain: () => Promise<EvmChainPort>; xrplLedger: XrplLedgerPort; xrplNetwork: () => Promise<string>; port?: CustodyBPort },
): BastionModule<CustodyBServices> {
  const { config, db, clock, secrets, providerSettings } = platform;
  platform.providerSettings.declare({
    kind: CUSTODY_KIND,
    provider: CUSTODY_B,
    description: 'custody-b: delegated wallets (Dfns protocol); unset = the built-in sandbox',
    settings: {
      appId: { required: true, description: 'The application id (x-dfns-appid)' },
      serviceCredId: { required: true, description: "The service account's key credential id" },
      network: { required: false, description: 'Default network of new wallets (e.g. EthereumSepolia, XrpLedgerTestnet)' },
    },
    secrets: {
      serviceToken: { required: true, description: "The service account's bearer token" },
      servicePrivateKey: { required: true, description: "The service account's key credential (PKCS#8 PEM, P-256 or Ed25519)" },
    },
  });
  const sandbox = createCustodyBSandbox({ db, secrets, clock, publicBaseUrl: () => platform.publicBaseUrl(), evmChain: deps.evmChain, xrplLedger: deps.xrplLedger, inFlight: platform.inFlight });
  const custodyB = createCustodyBService({
    repo: createCustodyBRepo(db),
    clock,
    secrets,
    port: deps.port ?? createCustodyBAdapter({ now: () => clock.now() }),
    sandbox,
    sandboxes: config.sandboxes,
    providerSettings,
    users: deps.users,
    wallets: deps.wallets,
    audit: deps.audit,
    localChainId: config.evm.chainId,
    localXrplNetwork: deps.xrplNetwork,
  });

  return {
    name: 'custody-b',
    services: { custodyB, custodyBSandbox: sandbox },
    routes: {
      tenant: (scope) => custodyBRoutes(scope, { service: custodyB }),
      open: async (app) => {
        if (config.sandboxes) await sandbox.routes(app);
      },
    },
  };
}
