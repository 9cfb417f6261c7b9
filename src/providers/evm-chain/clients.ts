import { createPublicClient, createWalletClient, defineChain, type Account, type Chain, type Transport } from 'viem';
import type { EvmChainPort, EvmChainStatus } from './port.js';
import { EvmChainUnavailable } from './port.js';

export function chainDefinition(chainId: number, name: string, rpcUrl?: string): Chain {
  return defineChain({
    id: chainId,
    name,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: rpcUrl ? [rpcUrl] : [] } },
  });
}

/** The port over any viem transport: the RPC adapter and the local chain share this. */
export function portOver(options: {
  mode: 'local' | 'rpc';
  chain: Chain;
  transport: Transport;
  devAccounts?: EvmChainPort['devAccounts'];
  close?: () => Promise<void>;
}): EvmChainPort {
  const { mode, chain, transport } = options;
  const publicClient = createPublicClient({ chain, transport });
  return {
    mode,
    chainId: chain.id,
    chain,
    publicClient,
    walletClient: (account: Account) => createWalletClient({ account, chain, transport }),
    devAccounts: options.devAccounts ?? [],
    async status(): Promise<EvmChainStatus> {
      let remoteId: number;
      let blockNumber: bigint;
      try {
        [remoteId, blockNumber] = await Promise.all([publicClient.getChainId(), publicClient.getBlockNumber({ cacheTime: 0 })]);
      } catch (error) {
        throw new EvmChainUnavailable('the node does not answer', { cause: error });
      }
      if (remoteId !== chain.id) throw new EvmChainUnavailable(`the node's chain id is ${remoteId}, expected ${chain.id}`);
      return { mode, chainId: chain.id, blockNumber: blockNumber.toString() };
    },
    close: options.close ?? (async () => undefined),
  };
}
