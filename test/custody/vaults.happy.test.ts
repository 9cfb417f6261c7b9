import { formatEther, parseEther, type Hex } from 'viem';
import { privateKeyToAccount, generatePrivateKey } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { createVault, drain, evmChain, fundEvm } from './helpers.js';
import { outbox } from '../helpers/outbox.js';
import { expectError } from '../helpers/security.js';

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
    const api = h.api(h.bearerHeaders(token));
    const byId = await api.GET('/evm-vaults', { params: { query: { id: vault.id } } });
    expect(byId.response.status).toBe(200);
    const byAddress = await h.api(h.keyHeaders()).GET('/evm-vaults', { params: { query: { address: vault.address.toLowerCase() } } });
    expect(byAddress.data).toMatchObject({ id: vault.id, userId });

    await fundEvm(h, vault.address, '1');
    const to = privateKeyToAccount(generatePrivateKey()).address;
    const walletId = vault.wallets[0]!.walletId;
    const path = { vaultId: vault.id, walletId };
    const transfer = {
      params: { path, header: { 'idempotency-key': 'pay-1' } },
      body: { destinationAddress: to, symbol: 'ETH', qty: '0.25' },
    };
    const first = await api.POST('/custody-a/vaults/{vaultId}/wallets/{walletId}/transactions/transfer', transfer);
    expect(first.response.status, JSON.stringify(first.error)).toBe(201);
    const tx = first.data!;
    expect(tx).toMatchObject({ type: 'TRANSFER', symbol: 'ETH', qty: '0.25', destinationAddress: to });
    const again = await api.POST('/custody-a/vaults/{vaultId}/wallets/{walletId}/transactions/transfer', transfer);
    expect(again.data!.transactionId).toBe(tx.transactionId);
    expect(again.response.headers.get('idempotent-replayed')).toBe('true');

    await drain(h);
    const read = await api.GET('/custody-a/vaults/{vaultId}/wallets/{walletId}/transactions/{transactionId}', {
      params: { path: { ...path, transactionId: tx.transactionId } },
    });
    expect(read.response.status).toBe(200);
    expect(read.data!.status).toBe('CONFIRMED');
    const chain = await evmChain(h);
    const onChain = await chain.publicClient.getTransaction({ hash: read.data!.hash! as Hex });
    expect(onChain.to?.toLowerCase()).toBe(to.toLowerCase());
    expect(onChain.value).toBe(parseEther('0.25'));
    expect(formatEther(await chain.publicClient.getBalance({ address: to }))).toBe('0.25');

    // Each status change the provider reported is recorded once, forward only, with its audit
    // row; the final one also as transfer.completed, in the same statement as the change.
    const mine = (rows: Array<{ payload: unknown }>) => rows.filter((e) => (e.payload as { transactionId?: string }).transactionId === tx.transactionId);
    expect(mine(await outbox(h, undefined, 'transfer.submitted'))).toHaveLength(1);
    const completed = mine(await outbox(h, undefined, 'transfer.completed'));
    expect(completed.map((e) => e.payload)).toEqual([expect.objectContaining({ kind: 'custody-a.transaction', status: 'CONFIRMED', hash: read.data!.hash })]);
    const audited = await h.api(h.keyHeaders()).GET('/audit-events', { params: { query: { type: 'custody.transaction_updated', limit: 100 } } });
    expect(audited.response.status).toBe(200);
    const updates = audited.data!.data.filter((e) => (e.details as { transactionId?: string }).transactionId === tx.transactionId).reverse();
    const order = ['REQUESTED', 'APPROVED', 'SIGNED', 'PUBLISHED', 'CONFIRMATION_PENDING', 'CONFIRMED'];
    const statuses = updates.map((e) => (e.details as { status: string }).status);
    expect(statuses.at(-1)).toBe('CONFIRMED');
    expect(new Set(statuses).size).toBe(statuses.length);
    expect(statuses.map((st) => order.indexOf(st))).toEqual([...statuses.map((st) => order.indexOf(st))].sort((a, b) => a - b));
    for (const e of updates) expect(e).toMatchObject({ subjectUserId: userId });
  });

  it('ten concurrent repeats of a custody-a transfer under one Idempotency-Key send once', async () => {
    const vault = await createVault(h, userId);
    await fundEvm(h, vault.address, '1');
    const to = privateKeyToAccount(generatePrivateKey()).address;
    const api = h.api(h.keyHeaders());
    const transfer = {
      params: { path: { vaultId: vault.id, walletId: vault.wallets[0]!.walletId }, header: { 'idempotency-key': 'burst-1' } },
      body: { destinationAddress: to, symbol: 'ETH', qty: '0.01' },
    };
    const answers = await Promise.all(Array.from({ length: 10 }, () => api.POST('/custody-a/vaults/{vaultId}/wallets/{walletId}/transactions/transfer', transfer)));
    for (const a of answers) expect([201, 409]).toContain(a.response.status);
    expect(new Set(answers.filter((a) => a.response.status === 201).map((a) => a.data!.transactionId)).size).toBe(1);
    await drain(h);
    expect(await (await evmChain(h)).publicClient.getBalance({ address: to })).toBe(parseEther('0.01'));
  });

  it("a transaction's webhook (read with its claim): parallel repeats record nothing twice; an unknown or another tenant's transaction is 503 and claims nothing", async () => {
    const vault = await createVault(h, userId);
    await fundEvm(h, vault.address, '1');
    const to = privateKeyToAccount(generatePrivateKey()).address;
    const api = h.api(h.keyHeaders());
    const path = { vaultId: vault.id, walletId: vault.wallets[0]!.walletId };
    const made = await api.POST('/custody-a/vaults/{vaultId}/wallets/{walletId}/transactions/transfer', {
      params: { path, header: { 'idempotency-key': 'wh-tx-1' } },
      body: { destinationAddress: to, symbol: 'ETH', qty: '0.01' },
    });
    expect(made.response.status).toBe(201);
    await drain(h);
    const txId = made.data!.transactionId;
    const stored = (await h.container.db.execute(`select provider_transaction_id as p from custody_transactions where tenant_id = '${h.tenant.tenantId}' and id = '${txId}'`)) as unknown as { rows: { p: string }[] };
    const providerId = stored.rows[0]!.p;
    const deliver = async (tenantId: string, eventId: string, data: Record<string, unknown>) => {
      const body = JSON.stringify({ id: eventId, type: 'transaction.status_changed', data });
      const headers = { 'content-type': 'application/json', ...(await h.container.sandboxes.custodyA.webhookHeaders(body)) };
      return h.inject({ method: 'POST', url: `/custody-a/webhooks/${tenantId}`, headers, payload: body });
    };
    const completedOf = async () => (await outbox(h, undefined, 'transfer.completed')).filter((e) => (e.payload as { transactionId?: string }).transactionId === txId).length;
    const before = (await api.GET('/custody-a/vaults/{vaultId}/wallets/{walletId}/transactions/{transactionId}', { params: { path: { ...path, transactionId: txId } } })).data!;
    expect(before.status).toBe('CONFIRMED');
    expect(await completedOf()).toBe(1);

    // Ten deliveries of one event at once, naming the final status again: all acknowledged, nothing recorded twice.
    const answers = await Promise.all(Array.from({ length: 10 }, () => deliver(h.tenant.tenantId, 'wh-tx-again', { id: providerId, status: 'CONFIRMED', hash: before.hash })));
    for (const a of answers) expect(a.statusCode).toBe(200);
    const after = (await api.GET('/custody-a/vaults/{vaultId}/wallets/{walletId}/transactions/{transactionId}', { params: { path: { ...path, transactionId: txId } } })).data!;
    expect(after).toEqual(before);
    expect(await completedOf()).toBe(1);

    // A transaction not recorded here, and this tenant's transaction delivered to another tenant: 503, and the id stays unclaimed.
    const unknown = await deliver(h.tenant.tenantId, 'wh-tx-unknown', { id: 'not-recorded-yet', status: 'CONFIRMED' });
    expectError(unknown, 503, 'CUSTODY_WEBHOOK_OBJECT_UNKNOWN');
    const other = await h.newTenant();
    const elsewhere = await deliver(other.tenantId, 'wh-tx-elsewhere', { id: providerId, status: 'FAILED', failureReason: 'forged' });
    expectError(elsewhere, 503, 'CUSTODY_WEBHOOK_OBJECT_UNKNOWN');
    const claimed = (await h.container.db.execute(`select count(*)::int as n from inbound_webhooks where event_id in ('wh-tx-unknown', 'wh-tx-elsewhere')`)) as unknown as { rows: { n: number }[] };
    expect(claimed.rows[0]!.n).toBe(0);
    expect((await api.GET('/custody-a/vaults/{vaultId}/wallets/{walletId}/transactions/{transactionId}', { params: { path: { ...path, transactionId: txId } } })).data).toEqual(before);
  });

  it('keeps a rename: the answer and GET /evm-vaults show the new name and description from Bastion\'s record', async () => {
    const vault = await createVault(h, userId, { name: 'ops' });
    const walletId = vault.wallets[0]!.walletId;
    const token = await h.tokenFor(userId);
    const path = { vaultId: vault.id, walletId };
    const user = h.api(h.bearerHeaders(token));
    const key = h.api(h.keyHeaders());
    const res = await user.PUT('/custody-a/vaults/{vaultId}/wallets/{walletId}', { params: { path }, body: { name: 'Treasury', description: 'cold reserves' } });
    expect(res.response.status, JSON.stringify(res.error)).toBe(200);
    expect(res.data).toMatchObject({ name: 'Treasury', description: 'cold reserves', wallet: { walletId, details: { name: 'Treasury', description: 'cold reserves' } } });
    const read = await user.GET('/evm-vaults', { params: { query: { id: vault.id } } });
    expect(read.data!.wallets[0]!.details).toMatchObject({ name: 'Treasury', description: 'cold reserves', providerVaultId: expect.any(String) });
    // Renamed again without a description: the description is cleared, the provider's ids stay.
    const again = await key.PUT('/custody-a/vaults/{vaultId}/wallets/{walletId}', { params: { path }, body: { name: 'Reserve' } });
    expect(again.data).toMatchObject({ name: 'Reserve', description: null });
    const after = await key.GET('/evm-vaults', { params: { query: { id: vault.id } } });
    expect(after.data!.wallets[0]!.details).toMatchObject({ name: 'Reserve', description: null, providerVaultId: expect.any(String) });
  });
});
