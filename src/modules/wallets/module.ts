import type { BastionModule, Platform } from '../../platform/module/module.js';
import { createEvmChain } from '../../providers/evm-chain/select.js';
import type { EvmChainPort } from '../../providers/evm-chain/port.js';
import { createXrplLedger, type XrplLedger } from '../../providers/xrpl-ledger/index.js';
import type { AuditService } from '../audit/service.js';
import type { UsersService } from '../users/service.js';
import { createEvmEoaService, type EvmEoaService } from './evm-eoas.js';
import { createWalletsRepo } from './repo.js';
import { evmEoaRoutes } from './routes.js';
import { createWalletsService, type WalletsService } from './service.js';

export interface WalletsServices {
  /** The registry every wallet kind registers in (see service.ts for its interface). */
  wallets: WalletsService;
  eoas: EvmEoaService;
  /**
   * The EVM chain (EVM_RPC_URL, else the local in-process chain), started on first use or at
   * start(); a failed start is retried on the next call.
   */
  evmChain: () => Promise<EvmChainPort>;
  /**
   * The XRPL ledger (XRPL_URL, else the in-process stand-in when sandboxes are on, started at
   * the first call; else a ledger that refuses every call).
   */
  xrplLedger: XrplLedger;
}

/** The wallet registry, the EVM chain, and the /evm-eoas routes. */
export function createWalletsModule(
  platform: Platform,
  deps: { users: UsersService; audit: AuditService; evmChain?: () => Promise<EvmChainPort>; xrplLedger?: XrplLedger },
): BastionModule<WalletsServices> {
  const { config, db, tx, clock, secrets } = platform;
  let started: Promise<EvmChainPort> | undefined;
  const evmChain =
    deps.evmChain ??
    (() => {
      started ??= createEvmChain(config).catch((error: unknown) => {
        started = undefined;
        throw error;
      });
      return started;
    });
  const xrplLedger =
    deps.xrplLedger ??
    createXrplLedger({ xrplUrl: config.xrplUrl, xrplFaucetUrl: config.xrplFaucetUrl, sandboxes: config.sandboxes, dataDir: config.dataDir });
  const repo = createWalletsRepo(db);
  const wallets = createWalletsService({ repo, tx, clock, secrets, users: deps.users, audit: deps.audit, primaryEvmChainId: config.evm.chainId });
  const eoas = createEvmEoaService({
    repo,
    tx,
    clock,
    users: deps.users,
    wallets,
    chain: evmChain,
    chainId: config.evm.chainId,
    publicBaseUrl: platform.publicBaseUrl,
    limiter: platform.limiter,
  });

  return {
    name: 'wallets',
    services: { wallets, eoas, evmChain, xrplLedger },
    routes: { tenant: (scope) => evmEoaRoutes(scope, { eoas }) },
    start() {
      evmChain().catch((error: unknown) => platform.logger.error({ err: error }, 'the EVM chain did not start'));
    },
    async ready() {
      const chain = await evmChain();
      return {
        evmChain: await chain.status(),
        // The stand-in starts at its first use; a configured rippled must answer.
        xrplLedger: config.xrplUrl ? { mode: 'rippled', validatedLedgerIndex: (await xrplLedger.serverInfo()).validatedLedgerIndex } : { mode: config.sandboxes ? 'stand-in' : 'none' },
      };
    },
    async stop() {
      if (!deps.xrplLedger) await xrplLedger.close();
      if (started) await (await started.catch(() => undefined))?.close();
    },
  };
}
