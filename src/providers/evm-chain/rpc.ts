import { http } from 'viem';
import { chainDefinition, portOver } from './clients.js';
import type { EvmChainPort } from './port.js';

/** The chain behind EVM_RPC_URL: standard Ethereum JSON-RPC over HTTP(S). */
export function createRpcEvmChain(options: { rpcUrl: string; chainId: number }): EvmChainPort {
  const chain = chainDefinition(options.chainId, `EVM chain ${options.chainId}`, options.rpcUrl);
  return portOver({ mode: 'rpc', chain, transport: http(options.rpcUrl, { retryCount: 1, timeout: 5_000 }) });
}
