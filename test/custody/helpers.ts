import { parseEther } from 'viem';
import type { Harness } from '../helpers/harness.js';

/** Creates a vault for a user through the API key; answers its body. */
export async function createVault(h: Harness, userId: string, extra: Record<string, unknown> = {}) {
  const res = await h.inject({ method: 'POST', url: '/evm-vaults', headers: h.keyHeaders(), payload: { userId, ...extra } });
  if (res.statusCode !== 201) throw new Error(`vault: ${res.statusCode} ${res.body}`);
  return res.json() as { id: string; userId: string; address: string; wallets: { walletId: string; chain: string; address: string; kind: string }[] };
}

/** Sends ETH from a funded dev account of the local chain. */
export async function fundEvm(h: Harness, to: string, eth: string): Promise<void> {
  const chain = await h.container.modules.find((m) => m.name === 'chains')!.services;
  const evm = await (chain as { evmChain: () => Promise<import('../../src/providers/evm-chain/port.js').EvmChainPort> }).evmChain();
  const dev = evm.devAccounts[0]!;
  const hash = await evm.walletClient(dev).sendTransaction({ to: to as `0x${string}`, value: parseEther(eth), account: dev, chain: evm.chain });
  await evm.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 });
}

export async function evmChain(h: Harness) {
  const services = h.container.modules.find((m) => m.name === 'chains')!.services as { evmChain: () => Promise<import('../../src/providers/evm-chain/port.js').EvmChainPort> };
  return services.evmChain();
}

export function xrplLedger(h: Harness) {
  const services = h.container.modules.find((m) => m.name === 'chains')!.services as { xrplLedger: import('../../src/chains/xrpl-ledger.js').XrplLedger };
  return services.xrplLedger;
}

export const drain = (h: Harness) => h.container.platform.background.drain();
