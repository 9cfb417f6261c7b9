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
import type { StandInServerOptions } from '../../providers/xrpl-ledger/sandbox/server.js';
import { xrplNetworkOf } from './xrpl-common.js';
import { createXrplChallenges } from './xrpl-challenges.js';
import { createXrplNonCustodial, type XrplNonCustodial } from './xrpl-noncustodial.js';
import { createXrplRepo } from './xrpl-repo.js';
import { xrplRoutes } from './xrpl-routes.js';
import { createXrplSecureAccounts, type XrplSecureAccounts } from './xrpl-secure-accounts.js';
import { createXrplSubmissions, type XrplSubmissions } from './xrpl-submissions.js';

export interface XrplModuleOptions {
  /** Stand-in settings (e.g. closeIntervalMs). */
  standIn?: StandInServerOptions;
  /** How long a request waits for its transaction to be final (default 30 s). */
  finalTimeoutMs?: number;
}

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
  /** The XRPL network name wallets are registered under: `local` on the stand-in, else the ledger's (mainnet, testnet...). */
  xrplNetwork: () => Promise<string>;
  xrplSecureAccounts: XrplSecureAccounts;
  xrplNonCustodial: XrplNonCustodial;
  /** Reliable submission of XRPL transactions (tracked until validated or expired). */
  xrplSubmissions: XrplSubmissions;
}

/** The wallet registry, the EVM chain, and the /evm-eoas routes. */
export function createWalletsModule(
  platform: Platform,
  deps: { users: UsersService; audit: AuditService; evmChain?: () => Promise<EvmChainPort>; xrplLedger?: XrplLedger },
  xrplOptions: XrplModuleOptions = {},
): BastionModule<WalletsServices> {
  const { config, db, tx, clock, secrets } = platform;
  let started: Promise<EvmChainPort> | undefined;
  const evmChain =
    deps.evmChain ??
    (() => {
      started ??= createEvmChain(config, {
        onLocalReset: (reset) =>
          platform.logger.error(
            { reset },
            'the local EVM chain could not be replayed and started empty: records confirmed before this start may name hashes it does not have (see GET /ready)',
          ),
      }).catch((error: unknown) => {
        started = undefined;
        throw error;
      });
      return started;
    });
  const xrplLedger =
    deps.xrplLedger ??
    createXrplLedger({
      xrplUrl: config.xrplUrl,
      xrplFaucetUrl: config.xrplFaucetUrl,
      sandboxes: config.sandboxes,
      dataDir: config.dataDir,
      ...(xrplOptions.standIn ? { standIn: xrplOptions.standIn } : {}),
    });
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
  const xrplRepo = createXrplRepo(db);
  const network = xrplNetworkOf(xrplLedger);
  const challenges = createXrplChallenges({ repo: xrplRepo, clock, limiter: platform.limiter, publicBaseUrl: platform.publicBaseUrl });
  const xrplSubmissions = createXrplSubmissions({ db, repo: xrplRepo, tx, clock, ledger: xrplLedger, finalTimeoutMs: xrplOptions.finalTimeoutMs ?? 30_000 });
  // Submissions in flight that no request follows (any more), including those a previous run
  // left, are claimed by the platform's in-flight sweeper and followed until final.
  platform.inFlight.register(xrplSubmissions.flow);
  const xrplSecureAccounts = createXrplSecureAccounts({ tx, users: deps.users, wallets, ledger: xrplLedger, network, challenges });
  const xrplNonCustodial = createXrplNonCustodial({
    tx,
    users: deps.users,
    wallets,
    walletsRepo: repo,
    repo: xrplRepo,
    ledger: xrplLedger,
    network,
    challenges,
    submissions: xrplSubmissions,
    testSigning: config.xrplTestSigning,
  });

  return {
    name: 'wallets',
    services: { wallets, eoas, evmChain, xrplLedger, xrplNetwork: network, xrplSecureAccounts, xrplNonCustodial, xrplSubmissions },
    routes: {
      tenant: (scope) => {
        evmEoaRoutes(scope, { eoas });
        xrplRoutes(scope, { secure: xrplSecureAccounts, noncustodial: xrplNonCustodial });
      },
    },
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
