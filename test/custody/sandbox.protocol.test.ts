import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCustodyAClient } from '../../src/providers/custody/custody-a/http.js';
import { verifyWebhook } from '../../src/providers/custody/custody-a/signing.js';
import { expectError } from '../helpers/security.js';
import { signRequest } from '../../src/providers/custody/custody-a/signing.js';
import { newEd25519KeyPair } from '../../src/providers/custody/custody-a/signing.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { createVault, drain, fundEvm } from './helpers.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness({ listen: true });
});
afterAll(async () => h.close());

describe('the custody-a sandbox authenticates as the provider does', () => {
  it('refuses unsigned, wrongly signed and stale requests (401), and answers a signed one', async () => {
    const { apiKey, signingKey } = await h.container.sandboxes.custodyA.credentialsFor(h.tenant.tenantId, `${h.baseUrl}/custody-a/webhooks/${h.tenant.tenantId}`);
    const url = `${h.baseUrl}/sandbox/custody-a/v2/vaults`;
    const body = JSON.stringify({ name: 'direct' });
    const now = String(Math.floor(h.clock.now().getTime() / 1000));
    const send = (headers: Record<string, string>) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
    expect((await send({})).status).toBe(401);
    const foreignKey = newEd25519KeyPair().privateKeyPem;
    expect((await send({ 'api-access-key': apiKey, 'api-timestamp': now, 'api-signature': signRequest(foreignKey, now, 'POST', '/v2/vaults', body) })).status).toBe(401);
    const stale = String(Number(now) - 3600);
    expect((await send({ 'api-access-key': apiKey, 'api-timestamp': stale, 'api-signature': signRequest(signingKey, stale, 'POST', '/v2/vaults', body) })).status).toBe(401);
    const tampered = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'api-access-key': apiKey, 'api-timestamp': now, 'api-signature': signRequest(signingKey, now, 'POST', '/v2/vaults', body) },
      body: JSON.stringify({ name: 'other' }),
    });
    expect(tampered.status).toBe(401);
    const ok = await send({ 'api-access-key': apiKey, 'api-timestamp': now, 'api-signature': signRequest(signingKey, now, 'POST', '/v2/vaults', body) });
    expect(ok.status).toBe(201);
    expect(await ok.json()).toMatchObject({ name: 'direct' });
  });
});

describe('webhooks', () => {
  /** A user's non-custodial transfer of 0.1 ETH from a funded vault, just created (not drained). */
  async function startTransfer(idempotentId: string) {
    const userId = await h.createUser();
    const token = await h.tokenFor(userId);
    const vault = await createVault(h, userId);
    await fundEvm(h, vault.address, '1');
    const created = await h.inject({
      method: 'POST',
      url: '/non-custodial-evm/transfers',
      headers: h.bearerHeaders(token),
      payload: { amount: '0.1', assetType: 'ETH', sourceId: vault.wallets[0]!.walletId, sourceType: 'WALLET', destinationId: '0x000000000000000000000000000000000000dEaD', destinationType: 'ADDRESS', idempotentId, provider: 'custody-a' },
    });
    return { token, transfer: created.json() };
  }

  /** How many transfer.completed events the outbox holds for a transfer. */
  async function completedEvents(transferId: string): Promise<number> {
    const events = await h.container.db.execute(`select count(*)::int as n from outbox_events where tenant_id = '${h.tenant.tenantId}' and type = 'transfer.completed' and payload->>'transferId' = '${transferId}'`);
    return (events as unknown as { rows: { n: number }[] }).rows[0]!.n;
  }

  it('a replayed or out-of-order delivery changes nothing', async () => {
    const { token, transfer } = await startTransfer('wh-1');
    await drain(h);
    const done = (await h.inject({ method: 'GET', url: `/non-custodial-evm/transfers/${transfer.id}`, headers: h.bearerHeaders(token) })).json();
    expect(done.status).toBe('COMPLETED');
    const url = `/custody-a/webhooks/${h.tenant.tenantId}`;
    const deliver = async (data: Record<string, unknown>) => {
      const body = JSON.stringify({ id: 'evt', type: 'transfer.status_changed', data });
      const headers = await h.container.sandboxes.custodyA.webhookHeaders(body);
      return h.inject({ method: 'POST', url, headers: { 'content-type': 'application/json', ...headers }, payload: body });
    };
    const late = await deliver({ transferId: transfer.providerTransferId, status: 'IN_PROGRESS', blockchainTxId: done.hash });
    expect(late.statusCode).toBe(200);
    expect((await deliver({ transferId: transfer.providerTransferId, status: 'COMPLETED', blockchainTxId: done.hash })).statusCode).toBe(200);
    const after = (await h.inject({ method: 'GET', url: `/non-custodial-evm/transfers/${transfer.id}`, headers: h.bearerHeaders(token) })).json();
    expect(after).toMatchObject({ status: 'COMPLETED', hash: done.hash, updatedAt: done.updatedAt });
    expect(await completedEvents(transfer.id)).toBe(1);
  });

  it('ten deliveries of COMPLETED and reads at once record one change: one transfer.completed event', async () => {
    const { token, transfer } = await startTransfer('wh-burst');
    const url = `/custody-a/webhooks/${h.tenant.tenantId}`;
    const body = JSON.stringify({ id: 'evt-burst', type: 'transfer.status_changed', data: { transferId: transfer.providerTransferId, status: 'COMPLETED', blockchainTxId: `0x${'ab'.repeat(32)}` } });
    const headers = { 'content-type': 'application/json', ...(await h.container.sandboxes.custodyA.webhookHeaders(body)) };
    const answers = await Promise.all([
      ...Array.from({ length: 10 }, () => h.inject({ method: 'POST', url, headers, payload: body })),
      ...Array.from({ length: 3 }, () => h.inject({ method: 'GET', url: `/non-custodial-evm/transfers/${transfer.id}`, headers: h.bearerHeaders(token) })),
    ]);
    for (const a of answers) expect(a.statusCode).toBe(200);
    await drain(h);
    expect(await completedEvents(transfer.id)).toBe(1);
  });

  it('names a transfer not recorded here: 503 with Retry-After, nothing applied; once recorded the same delivery applies', async () => {
    const url = `/custody-a/webhooks/${h.tenant.tenantId}`;
    const body = JSON.stringify({ id: 'evt-early', type: 'transfer.status_changed', data: { transferId: 'not-recorded-yet', status: 'COMPLETED' } });
    const early = await h.inject({ method: 'POST', url, headers: { 'content-type': 'application/json', ...(await h.container.sandboxes.custodyA.webhookHeaders(body)) }, payload: body });
    expectError(early, 503, 'CUSTODY_WEBHOOK_OBJECT_UNKNOWN');
    expect(early.headers['retry-after']).toBe('1');
  });

  it('the sandbox sends a delivery again while the receiver answers 503, with the same id and a valid signature each time', async () => {
    const seen: { id: string; status: number; valid: boolean }[] = [];
    let publicKeyPem = '';
    const receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const id = (JSON.parse(raw) as { id: string; data: { status: string } }).id;
        const valid = verifyWebhook(publicKeyPem, String(req.headers['x-custody-timestamp']), raw, String(req.headers['x-custody-signature']));
        const status = seen.filter((s) => s.id === id).length < 2 ? 503 : 200; // the first two attempts of each fail
        seen.push({ id, status, valid });
        res.writeHead(status).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      const credentials = await h.container.sandboxes.custodyA.credentialsFor(`retry-receiver-${randomUUID()}`, hook); // an account of its own
      const client = createCustodyAClient({ baseUrl: `${h.baseUrl}/sandbox/custody-a`, ...credentials }, { clock: h.clock });
      publicKeyPem = await client.webhookPublicKey();
      const vault = await client.createVault({ name: 'retry' });
      const wallet = await client.createWallet(vault.id, { blockchain: 'ETHEREUM', name: 'retry' });
      await fundEvm(h, wallet.address, '1');
      const transfer = await client.createTransfer({
        sourceWalletId: wallet.id, destinationAddress: '0x000000000000000000000000000000000000dEaD', assetType: 'ETH', amount: '0.01', idempotentId: 'retry-1', deductFeeFromAmountIfSameType: false,
      });
      await drain(h); // the work and every delivery, retries included
      const ids = [...new Set(seen.map((s) => s.id))];
      expect(ids.length).toBeGreaterThanOrEqual(2); // IN_PROGRESS and COMPLETED at least
      for (const id of ids) expect(seen.filter((s) => s.id === id).map((s) => s.status)).toEqual([503, 503, 200]);
      expect(seen.every((s) => s.valid)).toBe(true);
      expect((await client.getTransfer(transfer.transferId)).status).toBe('COMPLETED');
    } finally {
      await new Promise((resolve) => receiver.close(resolve));
    }
  }, 60_000);

  it('a shutdown ends the waits between resends: close does not wait for the next attempt', async () => {
    const own = await createHarness({ listen: true });
    const attempts = new Map<string, number>(); // per webhook id
    const receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const id = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string }).id;
        attempts.set(id, (attempts.get(id) ?? 0) + 1);
        res.writeHead(503).end(); // never accepted
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const sandbox = own.container.sandboxes.custodyA;
      const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      const credentials = await sandbox.credentialsFor(`shutdown-${randomUUID()}`, hook);
      const client = createCustodyAClient({ baseUrl: `${own.baseUrl}/sandbox/custody-a`, ...credentials }, { clock: own.clock });
      const vault = await client.createVault({ name: 'shutdown' });
      const wallet = await client.createWallet(vault.id, { blockchain: 'ETHEREUM', name: 'shutdown' });
      await fundEvm(own, wallet.address, '1');
      await client.createTransfer({
        sourceWalletId: wallet.id, destinationAddress: '0x000000000000000000000000000000000000dEaD', assetType: 'ETH', amount: '0.01', idempotentId: 'shutdown-1', deductFeeFromAmountIfSameType: false,
      });
      // Three failed attempts of the first delivery: the sandbox now waits 3 s, then 10 s.
      const most = () => Math.max(0, ...attempts.values());
      for (const deadline = Date.now() + 20_000; most() < 3 && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 20));
      expect(most()).toBeGreaterThanOrEqual(3);
      const started = performance.now();
      await own.close();
      // Waiting out the resends would take 13 s and reach 5 attempts of every delivery.
      expect(performance.now() - started).toBeLessThan(8000);
      for (const count of attempts.values()) expect(count).toBeLessThan(5);
    } finally {
      await new Promise((resolve) => receiver.close(resolve));
    }
  }, 60_000);
});
