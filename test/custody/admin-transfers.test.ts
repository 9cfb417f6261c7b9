import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness, type TestTenant } from '../helpers/harness.js';
import { routeCases } from '../helpers/security.js';
import { createVault, drain, fundEvm } from './helpers.js';

let h: Harness;
let userId: string;
let token: string;
let vault: Awaited<ReturnType<typeof createVault>>;
let other: TestTenant;
let foreignTransferId: string;
const ZERO = '00000000-0000-4000-8000-000000000000';

async function send(harness: Harness, bearer: string, walletId: string, idempotentId: string, tenant?: TestTenant) {
  const payload = {
    amount: '0.01', assetType: 'ETH', sourceId: walletId, sourceType: 'WALLET', destinationId: privateKeyToAccount(generatePrivateKey()).address,
    destinationType: 'ADDRESS', idempotentId, provider: 'custody-a',
  };
  const res = await harness.inject({ method: 'POST', url: '/non-custodial-evm/transfers', headers: harness.bearerHeaders(bearer, tenant), payload });
  if (res.statusCode !== 201) throw new Error(`transfer: ${res.statusCode} ${res.body}`);
  return res.json() as { id: string; status: string };
}

beforeAll(async () => {
  h = await createHarness({ listen: true });
  userId = await h.createUser();
  token = await h.tokenFor(userId);
  vault = await createVault(h, userId);
  await fundEvm(h, vault.address, '1');
  other = await h.newTenant();
  const foreignUser = await h.createUser(other);
  const res = await h.inject({ method: 'POST', url: '/evm-vaults', headers: h.keyHeaders(other), payload: { userId: foreignUser } });
  const foreignVault = res.json() as Awaited<ReturnType<typeof createVault>>;
  foreignTransferId = (await send(h, await h.tokenFor(foreignUser, other), foreignVault.wallets[0]!.walletId, `foreign-${foreignUser}`, other)).id;
});
afterAll(async () => h.close());

type Listed = { total: number; data: { id: string; userId: string; status: string; hash: string | null; history: { status: string; hash: string | null; at: string }[] }[] };

describe('GET /custody-a/transfers', () => {
  it("lists the tenant's transfers newest first with their recorded statuses and chain hash; filters by user and status; never another tenant's", async () => {
    const first = await send(h, token, vault.wallets[0]!.walletId, `adm-1-${userId}`);
    const second = await send(h, token, vault.wallets[0]!.walletId, `adm-2-${userId}`);
    const read = async () => (await h.inject({ method: 'GET', url: `/custody-a/transfers?userId=${userId}`, headers: h.keyHeaders() })).json() as Listed;
    let listed = await read();
    for (const deadline = Date.now() + 20_000; listed.data.some((t) => t.status !== 'COMPLETED' && t.status !== 'FAILED') && Date.now() < deadline; listed = await read()) {
      await drain(h);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(listed.total).toBe(2);
    expect(listed.data.map((t) => t.id)).toEqual([second.id, first.id]);
    for (const t of listed.data) {
      expect(t.status).toBe('COMPLETED');
      expect(t.hash).toMatch(/^0x[0-9a-f]{64}$/);
      expect(t.history[0]).toMatchObject({ status: 'QUEUED' });
      expect(t.history.at(-1)).toMatchObject({ status: 'COMPLETED', hash: t.hash });
      expect(t.history.map((s) => s.at)).toEqual([...t.history.map((s) => s.at)].sort());
      expect(t).not.toHaveProperty('transferAmlQuestionnaire');
    }

    // An admin's bearer token lists the same; the filters narrow it; keyset paging continues.
    const admin = await h.tokenFor(await h.createUser(undefined, undefined, 'admin'));
    const asAdmin = (await h.inject({ method: 'GET', url: `/custody-a/transfers?userId=${userId}&status=COMPLETED&limit=1`, headers: h.bearerHeaders(admin) })).json() as Listed;
    expect(asAdmin).toMatchObject({ total: 2, data: [{ id: second.id }] });
    const next = (await h.inject({ method: 'GET', url: `/custody-a/transfers?userId=${userId}&limit=1&beforeId=${second.id}`, headers: h.bearerHeaders(admin) })).json() as Listed;
    expect(next.data.map((t) => t.id)).toEqual([first.id]);
    const none = (await h.inject({ method: 'GET', url: `/custody-a/transfers?userId=${userId}&status=FAILED`, headers: h.keyHeaders() })).json() as Listed;
    expect(none).toEqual({ total: 0, data: [] });

    // Tenant-wide: another tenant's transfer is never listed, theirs is listed to them.
    const all = (await h.inject({ method: 'GET', url: '/custody-a/transfers?limit=100', headers: h.keyHeaders() })).json() as Listed;
    expect(all.data.map((t) => t.id)).toEqual(expect.arrayContaining([first.id, second.id]));
    expect(all.data.map((t) => t.id)).not.toContain(foreignTransferId);
    const theirs = (await h.inject({ method: 'GET', url: '/custody-a/transfers', headers: h.keyHeaders(other) })).json() as Listed;
    expect(theirs.data.map((t) => t.id)).toEqual([foreignTransferId]);

    // One of them, the same as listed.
    const one = await h.inject({ method: 'GET', url: `/custody-a/transfers/${first.id}`, headers: h.bearerHeaders(admin) });
    expect(one.statusCode).toBe(200);
    expect(one.json()).toEqual(listed.data[1]);
  });

  it('403 for a plain user, even for its own transfers', async () => {
    const mine = await send(h, token, vault.wallets[0]!.walletId, `adm-403-${userId}`);
    for (const url of [`/custody-a/transfers?userId=${userId}`, `/custody-a/transfers/${mine.id}`]) {
      const res = await h.inject({ method: 'GET', url, headers: h.bearerHeaders(token) });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({ statusCode: 403, code: expect.any(String) });
    }
  });
});

routeCases(() => h, 'GET /custody-a/transfers', { url: () => '/custody-a/transfers', accepts: { apiKey: true, bearer: 'admin' } });
routeCases(() => h, 'GET /custody-a/transfers/{id}', {
  url: () => `/custody-a/transfers/${ZERO}`,
  accepts: { apiKey: true, bearer: 'admin' },
  foreign: () => `/custody-a/transfers/${foreignTransferId}`,
});
