import { formatEther, parseEther } from 'viem';
import { privateKeyToAccount, generatePrivateKey } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { createVault, drain, evmChain, fundEvm } from './helpers.js';

let h: Harness;
let userId: string;
beforeAll(async () => {
  h = await createHarness({ listen: true });
  userId = await h.createUser();
});
afterAll(async () => h.close());

describe('custodial EVM vaults at custody-a (sandbox)', () => {
  it('creates a vault, finds it by id and address, and moves ETH out for real', async () => {
    const vault = await createVault(h, userId);
    expect(vault.wallets).toHaveLength(1);
    expect(vault.wallets[0]).toMatchObject({ kind: 'evm-vault', chain: 'evm', address: vault.address });
    const token = await h.tokenFor(userId);
    const byId = await h.inject({ method: 'GET', url: `/evm-vaults?id=${vault.id}`, headers: h.bearerHeaders(token) });
    expect(byId.statusCode).toBe(200);
    const byAddress = await h.inject({ method: 'GET', url: `/evm-vaults?address=${vault.address.toLowerCase()}`, headers: h.keyHeaders() });
    expect(byAddress.json()).toMatchObject({ id: vault.id, userId });

    await fundEvm(h, vault.address, '1');
    const to = privateKeyToAccount(generatePrivateKey()).address;
    const walletId = vault.wallets[0]!.walletId;
    const url = `/custody-a/vaults/${vault.id}/wallets/${walletId}/transactions/transfer`;
    const headers = { ...h.bearerHeaders(token), 'idempotency-key': 'pay-1' };
    const payload = { destinationAddress: to, symbol: 'ETH', qty: '0.25' };
    const first = await h.inject({ method: 'POST', url, headers, payload });
    expect(first.statusCode, first.body).toBe(201);
    const tx = first.json();
    expect(tx).toMatchObject({ type: 'TRANSFER', symbol: 'ETH', qty: '0.25', destinationAddress: to });
    const again = await h.inject({ method: 'POST', url, headers, payload });
    expect(again.json().transactionId).toBe(tx.transactionId);
    expect(again.headers['idempotent-replayed']).toBe('true');

    await drain(h);
    const read = await h.inject({ method: 'GET', url: `/custody-a/vaults/${vault.id}/wallets/${walletId}/transactions/${tx.transactionId}`, headers: h.bearerHeaders(token) });
    expect(read.statusCode).toBe(200);
    expect(read.json().status).toBe('CONFIRMED');
    const chain = await evmChain(h);
    const onChain = await chain.publicClient.getTransaction({ hash: read.json().hash });
    expect(onChain.to?.toLowerCase()).toBe(to.toLowerCase());
    expect(onChain.value).toBe(parseEther('0.25'));
    expect(formatEther(await chain.publicClient.getBalance({ address: to }))).toBe('0.25');
  });

  it('ten concurrent repeats of a custody-a transfer under one Idempotency-Key send once', async () => {
    const vault = await createVault(h, userId);
    await fundEvm(h, vault.address, '1');
    const to = privateKeyToAccount(generatePrivateKey()).address;
    const url = `/custody-a/vaults/${vault.id}/wallets/${vault.wallets[0]!.walletId}/transactions/transfer`;
    const headers = { ...h.keyHeaders(), 'idempotency-key': 'burst-1' };
    const answers = await Promise.all(Array.from({ length: 10 }, () => h.inject({ method: 'POST', url, headers, payload: { destinationAddress: to, symbol: 'ETH', qty: '0.01' } })));
    for (const a of answers) expect([201, 409]).toContain(a.statusCode);
    expect(new Set(answers.filter((a) => a.statusCode === 201).map((a) => a.json().transactionId)).size).toBe(1);
    await drain(h);
    expect(await (await evmChain(h)).publicClient.getBalance({ address: to })).toBe(parseEther('0.01'));
  });

  it('keeps a rename: the answer and GET /evm-vaults show the new name and description from Bastion\'s record', async () => {
    const vault = await createVault(h, userId, { name: 'ops' });
    const walletId = vault.wallets[0]!.walletId;
    const token = await h.tokenFor(userId);
    const res = await h.inject({
      method: 'PUT',
      url: `/custody-a/vaults/${vault.id}/wallets/${walletId}`,
      headers: h.bearerHeaders(token),
      payload: { name: 'Treasury', description: 'cold reserves' },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ name: 'Treasury', description: 'cold reserves', wallet: { walletId, details: { name: 'Treasury', description: 'cold reserves' } } });
    const read = await h.inject({ method: 'GET', url: `/evm-vaults?id=${vault.id}`, headers: h.bearerHeaders(token) });
    expect(read.json().wallets[0].details).toMatchObject({ name: 'Treasury', description: 'cold reserves', providerVaultId: expect.any(String) });
    // Renamed again without a description: the description is cleared, the provider's ids stay.
    const again = await h.inject({ method: 'PUT', url: `/custody-a/vaults/${vault.id}/wallets/${walletId}`, headers: h.keyHeaders(), payload: { name: 'Reserve' } });
    expect(again.json()).toMatchObject({ name: 'Reserve', description: null });
    const after = await h.inject({ method: 'GET', url: `/evm-vaults?id=${vault.id}`, headers: h.keyHeaders() });
    expect(after.json().wallets[0].details).toMatchObject({ name: 'Reserve', description: null, providerVaultId: expect.any(String) });
  });
});
