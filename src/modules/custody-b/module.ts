import type { BastionModule, Platform } from '../../platform/module/module.js';
import { createCustodyBAdapter } from '../../providers/custody-b/http.js';
import type { CustodyBPort } from '../../providers/custody-b/port.js';
import { createCustodyBSandbox, type CustodyBSandbox } from '../../sandboxes/custody-b/plugin.js';
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
  deps: { users: UsersService; audit: AuditService; wallets: WalletsService; port?: CustodyBPort },
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
  const sandbox = createCustodyBSandbox({ db, secrets, clock, publicBaseUrl: () => platform.publicBaseUrl(), evmChain: platform.chains.evm, xrplLedger: platform.chains.xrpl, inFlight: platform.inFlight });
  const custodyB = createCustodyBService({
    repo: createCustodyBRepo(db),
    tx: platform.tx,
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
    localXrplNetwork: platform.chains.xrplNetwork,
  });

  return {
    name: 'custody-b',
    services: { custodyB, custodyBSandbox: sandbox },
    routes: {
      tenant: (scope) => {
        custodyBRoutes(scope, { service: custodyB });
        if (config.sandboxes) sandbox.faucetRoutes(scope, { walletOf: (caller, address) => custodyB.sandboxWallet(caller, address) });
      },
      open: async (app) => {
        if (config.sandboxes) await sandbox.routes(app);
      },
    },
  };
}
