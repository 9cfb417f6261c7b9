import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { outbox } from '../helpers/outbox.js';
import { upload } from '../documents/fixtures.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h.close());

describe('accreditations', () => {
  it('a user submits a claim for themself: 201 pending, audited, event written', async () => {
    const userId = await h.createUser();
    const headers = h.bearerHeaders(await h.tokenFor(userId));
    const documentIds: string[] = [];
    for (const name of ['W-2 2025', 'W-2 2026']) {
      const uploaded = await upload(h, headers, { type: 'accreditation', name });
      expect(uploaded.statusCode, uploaded.body).toBe(201);
      documentIds.push(uploaded.json().id);
    }
    const res = await h.api(headers).POST('/accreditations', { body: { type: 'income', documentIds, notes: 'W-2 for two years' } });
    expect(res.response.status, JSON.stringify(res.error)).toBe(201);
    expect(res.data).toMatchObject({
      id: expect.any(String),
      userId,
      type: 'income',
      documentIds,
      notes: 'W-2 for two years',
      status: 'pending',
      reason: null,
      decidedAt: null,
      history: [{ from: null, to: 'pending', actor: { type: 'user', id: userId }, reason: null }],
    });
    expect((await outbox(h, undefined, 'accreditation.submitted')).some((e) => e.payload.accreditationId === res.data!.id)).toBe(true);
  });

  it('an API key submits for a named user; the list answers the user, an admin and the key', async () => {
    const userId = await h.createUser();
    const key = h.api(h.keyHeaders());
    const first = await key.POST('/accreditations', { body: { type: 'net_worth', userId } });
    expect(first.response.status, JSON.stringify(first.error)).toBe(201);
    expect(first.data!.history[0]!.actor).toEqual({ type: 'apiKey', id: h.tenant.keyId });
    const second = await key.POST('/accreditations', { body: { type: 'entity', userId } });
    const admin = await h.createUser(undefined, undefined, 'admin');
    for (const headers of [h.bearerHeaders(await h.tokenFor(userId)), h.bearerHeaders(await h.tokenFor(admin)), h.keyHeaders()]) {
      const list = await h.api(headers).GET('/accreditations', { params: { query: { userId } } });
      expect(list.response.status).toBe(200);
      expect(list.data!.total).toBe(2);
      expect(list.data!.data.map((a) => a.id)).toEqual([second.data!.id, first.data!.id]);
    }
    const page = await key.GET('/accreditations', { params: { query: { userId, limit: 1, offset: 1 } } });
    expect(page.data).toMatchObject({ total: 2, data: [{ id: first.data!.id }] });
  });

  it('a decision is stored with its reason and actor, written to the outbox, and becomes an identity leaf', async () => {
    const userId = await h.createUser();
    const claim = (await h.api(h.bearerHeaders(await h.tokenFor(userId))).POST('/accreditations', { body: { type: 'professional_certification' } })).data!;
    const admin = await h.createUser(undefined, undefined, 'admin');
    h.clock.advance(5000);
    const res = await h.api(h.bearerHeaders(await h.tokenFor(admin))).POST('/accreditations/{id}/decision', {
      params: { path: { id: claim.id } },
      body: { decision: 'approved', reason: 'Series 65 licence verified' },
    });
    expect(res.response.status, JSON.stringify(res.error)).toBe(201);
    expect(res.data).toMatchObject({ id: claim.id, status: 'approved', reason: 'Series 65 licence verified', decidedAt: h.clock.now().toISOString() });
    expect(res.data!.history.at(-1)).toEqual({
      from: 'pending',
      to: 'approved',
      actor: { type: 'user', id: admin },
      reason: 'Series 65 licence verified',
      at: h.clock.now().toISOString(),
    });
    expect((await outbox(h, undefined, 'accreditation.decided')).find((e) => e.payload.accreditationId === claim.id)?.payload).toMatchObject({
      userId,
      decision: 'approved',
      reason: 'Series 65 licence verified',
    });
    const headers = h.bearerHeaders(await h.tokenFor(userId));
    const proofOf = async (path: string) => (await h.api(headers).GET('/kyc/identity/proof', { params: { query: { path } } })).data;
    expect(await proofOf('accreditation.status')).toMatchObject({ value: 'approved' });
    expect((await proofOf('accreditation.type'))!.value).toBe('professional_certification');
  });

  it('a rejection is recorded the same way', async () => {
    const userId = await h.createUser();
    const key = h.api(h.keyHeaders());
    const claim = (await key.POST('/accreditations', { body: { type: 'income', userId } })).data!;
    const res = await key.POST('/accreditations/{id}/decision', { params: { path: { id: claim.id } }, body: { decision: 'rejected', reason: 'income below threshold' } });
    expect(res.data).toMatchObject({ status: 'rejected', reason: 'income below threshold' });
  });

  it("documentIds must name the user's own documents: unknown and another user's ids are refused alike, nothing stored", async () => {
    const userId = await h.createUser();
    const other = await h.createUser();
    const headers = h.bearerHeaders(await h.tokenFor(userId));
    const mine = (await upload(h, headers)).json().id as string;
    const theirs = (await upload(h, h.bearerHeaders(await h.tokenFor(other)))).json().id as string;
    const otherTenant = await h.newTenant();
    const foreign = (await upload(h, h.bearerHeaders(await h.tokenFor(await h.createUser(otherTenant), otherTenant), otherTenant))).json().id as string;
    for (const documentIds of [[mine, theirs], [foreign], [mine, '00000000-0000-4000-8000-000000000000']]) {
      for (const asKey of [false, true]) {
        const res = await h.api(asKey ? h.keyHeaders() : headers).POST('/accreditations', { body: { type: 'income', documentIds, ...(asKey ? { userId } : {}) } });
        expect(res.response.status).toBe(400);
        expect(res.error).toMatchObject({ code: 'ACCREDITATION_DOCUMENT_UNKNOWN' });
      }
    }
    const list = await h.api(headers).GET('/accreditations', { params: { query: { userId } } });
    expect(list.data!.total).toBe(0);
    const ok = await h.api(h.keyHeaders()).POST('/accreditations', { body: { type: 'income', documentIds: [mine], userId } });
    expect(ok.response.status, JSON.stringify(ok.error)).toBe(201);
  });

  it("GET /accreditations/pending: the tenant's pending claims, oldest first, for an admin or the key; a decided claim leaves it", async () => {
    const tenant = await h.newTenant();
    const [ada, bob] = [await h.createUser(tenant), await h.createUser(tenant)];
    const key = h.api(h.keyHeaders(tenant));
    const submit = async (userId: string, type: 'income' | 'net_worth' | 'entity') => (await key.POST('/accreditations', { body: { type, userId } })).data!.id;
    const first = await submit(ada, 'income');
    const second = await submit(bob, 'net_worth');
    const third = await submit(ada, 'entity');
    const admin = await h.createUser(tenant, undefined, 'admin');
    const adminHeaders = h.bearerHeaders(await h.tokenFor(admin, tenant, 'admin'), tenant);
    const asAdmin = h.api(adminHeaders);
    const decided = await asAdmin.POST('/accreditations/{id}/decision', { params: { path: { id: second } }, body: { decision: 'approved' } });
    expect(decided.response.status).toBe(201);
    for (const headers of [adminHeaders, h.keyHeaders(tenant)]) {
      const res = await h.api(headers).GET('/accreditations/pending');
      expect(res.response.status, JSON.stringify(res.error)).toBe(200);
      expect(res.data!.total).toBe(2);
      expect(res.data!.data.map((a) => a.id)).toEqual([first, third]);
      expect(res.data!.data[0]).toMatchObject({ userId: ada, type: 'income', status: 'pending', history: [{ to: 'pending' }] });
    }
    const paged = await asAdmin.GET('/accreditations/pending', { params: { query: { limit: 1, offset: 1 } } });
    expect(paged.data).toMatchObject({ total: 2, data: [{ id: third }] });
    // Another tenant's queue holds none of them.
    const other = await h.api(h.keyHeaders()).GET('/accreditations/pending');
    expect(other.data!.data.map((a) => a.id)).not.toContain(first);
  });
});
