import { erc20Abi, getAddress, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { compileToken } from '../wallets/contracts.js';
import { createVault, drain, evmChain, fundEvm } from './helpers.js';

/** A token with 6 decimals, deployed by a dev account of the local chain, which sends 100 TST to the vault. */
let h: Harness;
let token: Hex;
let vault: Awaited<ReturnType<typeof createVault>>;
let headers: Record<string, string>;

const balanceOf = async (address: string) =>
  (await evmChain(h)).publicClient.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [getAddress(address)] });

beforeAll(async () => {
  h = await createHarness({ listen: true });
  const userId = await h.createUser();
  headers = h.bearerHeaders(await h.tokenFor(userId));
  vault = await createVault(h, userId);
  await fundEvm(h, vault.address, '0.1'); // gas

  const chain = await evmChain(h);
  const dev = chain.devAccounts[0]!;
  const wallet = chain.walletClient(dev);
  const { abi, bytecode } = compileToken();
  const deployed = await wallet.deployContract({ abi, bytecode, args: ['Test Token', 'TST', 6, 1_000_000_000_000n], account: dev, chain: chain.chain });
  token = getAddress((await chain.publicClient.waitForTransactionReceipt({ hash: deployed, pollingInterval: 50 })).contractAddress!);
  const sent = await wallet.writeContract({ address: token, abi: erc20Abi, functionName: 'transfer', args: [getAddress(vault.address), 100_000_000n], account: dev, chain: chain.chain });
  await chain.publicClient.waitForTransactionReceipt({ hash: sent, pollingInterval: 50 });
});
afterAll(async () => h.close());

async function transfer(key: string, payload: Record<string, unknown>) {
  const walletId = vault.wallets[0]!.walletId;
  const api = h.api(headers);
  const path = { vaultId: vault.id, walletId };
  const res = await api.POST('/custody-a/vaults/{vaultId}/wallets/{walletId}/transactions/transfer', {
    params: { path, header: { 'idempotency-key': key } },
    body: payload as never,
  });
  expect(res.response.status, JSON.stringify(res.error)).toBe(201);
  await drain(h);
  const read = await api.GET('/custody-a/vaults/{vaultId}/wallets/{walletId}/transactions/{transactionId}', {
    params: { path: { ...path, transactionId: res.data!.transactionId } },
  });
  return read.data!;
}

describe('ERC-20 transfers from a custody-a vault (sandbox)', () => {
  it('moves tokens for real: a `transfer` call on the contract, with the token decimals', async () => {
    const to = privateKeyToAccount(generatePrivateKey()).address;
    const tx = await transfer('tst-1', { destinationAddress: to, symbol: 'TST', qty: '12.5', contract: token });
    expect(tx).toMatchObject({ status: 'CONFIRMED', symbol: 'TST', qty: '12.5', contract: token, failureReason: null });
    const chain = await evmChain(h);
    expect(tx.hash).toMatch(/^0x[0-9a-f]{64}$/);
    const onChain = await chain.publicClient.getTransaction({ hash: tx.hash as `0x${string}` });
    expect(onChain.to?.toLowerCase()).toBe(token.toLowerCase());
    expect(onChain.value).toBe(0n);
    expect(await balanceOf(to)).toBe(12_500_000n);
    expect(await balanceOf(vault.address)).toBe(87_500_000n);
  });

  it('refuses, before signing, what the token cannot do: nothing moves', async () => {
    const to = privateKeyToAccount(generatePrivateKey()).address;
    const before = await balanceOf(vault.address);
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ symbol: 'TST', qty: '0.0000001', contract: token }, /more than 6 decimals/],
      [{ symbol: 'TST', qty: '1000', contract: token }, /insufficient token balance/],
      [{ symbol: 'USDC', qty: '1', contract: token }, /is TST, not USDC/],
      [{ symbol: 'TST', qty: '1', contract: getAddress(privateKeyToAccount(generatePrivateKey()).address) }, /not an ERC-20 token/],
    ];
    for (const [index, [body, reason]] of cases.entries()) {
      const tx = await transfer(`tst-refused-${index}`, { destinationAddress: to, ...body });
      expect(tx.status, JSON.stringify(body)).toBe('REJECTED');
      expect(tx.failureReason).toMatch(reason);
      expect(tx.hash).toBeNull();
    }
    expect(await balanceOf(vault.address)).toBe(before);
    expect(await balanceOf(to)).toBe(0n);
  });
});
