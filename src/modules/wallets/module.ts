import type { BastionModule, Platform } from '../../platform/module/module.js';
import { createEvmChain } from '../../providers/evm-chain/select.js';
import { startEvmRpcServer, type EvmRpcServer } from '../../providers/evm-chain/local/rpc-server.js';
import type { EvmChainPort } from '../../providers/evm-chain/port.js';
import { createXrplLedger, type XrplLedger } from '../../providers/xrpl-ledger/index.js';
import type { AuditService } from '../audit/service.js';
import type { UsersService } from '../users/service.js';
import { createEvmEoaService, type EvmEoaService } from './evm-eoas.js';
import { createWalletsRepo } from './repo.js';
import { evmEoaRoutes } from './routes.js';
import { createWalletsService, type WalletsService } from './service.js';
import { join } from 'node:path';
import { DEV_ACCOUNTS_FILE } from '../../providers/evm-chain/local/dev-accounts.js';
import type { StandInServerOptions } from '../../providers/xrpl-ledger/sandbox/server.js';
import { xrplNetworkOf } from '../xrpl/xrpl-common.js';
import { createXrplChallenges } from '../xrpl/xrpl-challenges.js';
import { createXrplNonCustodial, type XrplNonCustodial } from '../xrpl/xrpl-noncustodial.js';
import { createXrplRepo } from '../xrpl/xrpl-repo.js';
import { xrplRoutes } from '../xrpl/xrpl-routes.js';
import { createXrplSecureAccounts, type XrplSecureAccounts } from '../xrpl/xrpl-secure-accounts.js';
import { createXrplSubmissions, type XrplSubmissions } from '../xrpl/xrpl-submissions.js';

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
   * The XRPL ledger (XRPL_URL, else the in-process stand-in when sandboxes are on, started by
   * listen() on XRPL_LOCAL_PORT, or at the first call; else a ledger that refuses every call).
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
      standIn: { host: config.localChains.host, port: config.localChains.xrplPort, ...xrplOptions.standIn },
    });
  /** The local EVM chain's JSON-RPC listener, once listen() opened it. */
  let evmRpc: EvmRpcServer | undefined;
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
    async listen() {
      // The local chains are sandboxes: served only while sandboxes are on, and not over a configured node.
      if (!config.sandboxes) return;
      const urls: Record<string, string> = {};
      if (!config.evm.rpcUrl && config.localChains.evmRpcPort !== undefined) {
        const chain = await evmChain();
        if (chain.localRequest) {
          evmRpc = await startEvmRpcServer({ request: chain.localRequest, host: config.localChains.host, port: config.localChains.evmRpcPort });
          urls.evmRpcUrl = evmRpc.url;
        }
      }
      const standIn = config.xrplUrl ? undefined : await xrplLedger.standIn();
      if (standIn) Object.assign(urls, { xrplUrl: standIn.url, xrplFaucetUrl: standIn.faucetUrl });
      if (Object.keys(urls).length > 0) {
        platform.logger.info(
          { ...urls, evmDevAccounts: evmRpc ? join(config.dataDir, DEV_ACCOUNTS_FILE) : undefined },
          'local chains are served (sandboxes): connect viem, ethers, cast or a wallet to evmRpcUrl, the xrpl Client to xrplUrl; fund with a dev account or the faucet (README, Local chains)',
        );
      }
    },
    start() {
      evmChain().catch((error: unknown) => platform.logger.error({ err: error }, 'the EVM chain did not start'));
    },
    async ready() {
      const chain = await evmChain();
      const standIn = config.xrplUrl || !config.sandboxes ? undefined : await xrplLedger.standIn();
      return {
        evmChain: { ...(await chain.status()), ...(evmRpc ? { rpcUrl: evmRpc.url } : {}) },
        // A configured rippled must answer; the stand-in (started with the service) names its URLs.
        xrplLedger: config.xrplUrl
          ? { mode: 'rippled', validatedLedgerIndex: (await xrplLedger.serverInfo()).validatedLedgerIndex }
          : standIn
            ? { mode: 'stand-in', url: standIn.url, faucetUrl: standIn.faucetUrl, validatedLedgerIndex: standIn.ledger.validatedHeader.ledger_index }
            : { mode: 'none' },
      };
    },
    async stop() {
      await evmRpc?.stop();
      evmRpc = undefined;
      if (!deps.xrplLedger) await xrplLedger.close();
      if (started) await (await started.catch(() => undefined))?.close();
    },
  };
}
