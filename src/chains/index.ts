import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { BastionModule, Chains } from '../platform/module/module.js';
import { DEV_ACCOUNTS_FILE } from '../providers/evm-chain/local/dev-accounts.js';
import { startEvmRpcServer, type EvmRpcServer } from '../providers/evm-chain/local/rpc-server.js';
import type { EvmChainPort } from '../providers/evm-chain/port.js';
import { createEvmChain } from '../providers/evm-chain/select.js';
import { createXrplLedger, type XrplLedger, type XrplLedgerConfig } from './xrpl-ledger.js';
import type { XrplLedgerPort } from '../providers/xrpl-ledger/port.js';

export interface ChainsOptions {
  /** Stand-in settings (e.g. closeIntervalMs). */
  standIn?: XrplLedgerConfig['standIn'];
}

/** What tests, the CLI and the benchmark reach through the `chains` entry of the module list. */
export interface ChainsServices {
  evmChain: () => Promise<EvmChainPort>;
  /** The XRPL ledger with its stand-in (started by listen() when sandboxes are on and XRPL_URL is unset). */
  xrplLedger: XrplLedger;
  xrplNetwork: () => Promise<string>;
}

/**
 * The chains, built once by the composition root (infrastructure, not a module's): the EVM
 * chain (EVM_RPC_URL, else the local in-process chain) and the XRPL ledger (XRPL_URL, else the
 * stand-in when sandboxes are on, else a ledger that refuses every call). `chains` (ports only)
 * becomes `platform.chains`; `module` is the entry in the module list that opens the local
 * chains' listeners (listen), starts the EVM chain (start), reports them in GET /ready and
 * closes them (stop, after every module that uses them).
 */
export function createChains(config: Config, logger: () => Logger, options: ChainsOptions = {}): { chains: Chains; module: BastionModule<ChainsServices> } {
  let started: Promise<EvmChainPort> | undefined;
  const evmChain = (): Promise<EvmChainPort> => {
    started ??= createEvmChain(config, {
      onLocalReset: (reset) =>
        logger().error(
          { reset },
          'the local EVM chain could not be replayed and started empty: records confirmed before this start may name hashes it does not have (see GET /ready)',
        ),
    }).catch((error: unknown) => {
      started = undefined;
      throw error;
    });
    return started;
  };
  const xrplLedger = createXrplLedger({
    xrplUrl: config.xrplUrl,
    xrplFaucetUrl: config.xrplFaucetUrl,
    sandboxes: config.sandboxes,
    dataDir: config.dataDir,
    standIn: { host: config.localChains.host, port: config.localChains.xrplPort, ...options.standIn },
  });
  const xrplNetwork = xrplNetworkOf(xrplLedger);
  /** The local EVM chain's JSON-RPC listener, once listen() opened it. */
  let evmRpc: EvmRpcServer | undefined;

  return {
    chains: { evm: evmChain, xrpl: xrplLedger, xrplNetwork },
    module: {
      name: 'chains',
      services: { evmChain, xrplLedger, xrplNetwork },
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
          logger().info(
            { ...urls, evmDevAccounts: evmRpc ? join(config.dataDir, DEV_ACCOUNTS_FILE) : undefined },
            'local chains are served (sandboxes): connect viem, ethers, cast or a wallet to evmRpcUrl, the xrpl Client to xrplUrl; fund with a dev account or the faucet (README, Local chains)',
          );
        }
      },
      start() {
        evmChain().catch((error: unknown) => logger().error({ err: error }, 'the EVM chain did not start'));
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
        await xrplLedger.close();
        if (started) await (await started.catch(() => undefined))?.close();
      },
    },
  };
}

/** The network name XRPL wallets are registered under: `local` for the stand-in, else from the server's network id. */
export function xrplNetworkOf(ledger: XrplLedgerPort): () => Promise<string> {
  let cached: string | undefined;
  return async () => {
    if (cached) return cached;
    if (ledger.isSandbox) return (cached = 'local');
    const { networkId } = await ledger.serverInfo();
    const names: Record<number, string> = { 0: 'mainnet', 1: 'testnet', 2: 'devnet' };
    cached = networkId === undefined ? 'mainnet' : (names[networkId] ?? `network-${networkId}`);
    return cached;
  };
}
