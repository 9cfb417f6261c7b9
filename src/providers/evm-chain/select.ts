import type { Config } from '../../config.js';
import { createLocalEvmChain } from './local/edr.js';
import type { ChainReset } from './local/journal.js';
import type { EvmChainPort } from './port.js';
import { createRpcEvmChain } from './rpc.js';

/** EVM_RPC_URL set: the node behind it; unset: the local in-process chain (the embedded default). */
export async function createEvmChain(
  config: Pick<Config, 'evm' | 'dataDir'>,
  options: { onLocalReset?: (reset: ChainReset) => void } = {},
): Promise<EvmChainPort> {
  if (config.evm.rpcUrl) return createRpcEvmChain({ rpcUrl: config.evm.rpcUrl, chainId: config.evm.chainId });
  return createLocalEvmChain({ chainId: config.evm.chainId, dataDir: config.dataDir, ...(options.onLocalReset ? { onReset: options.onLocalReset } : {}) });
}
