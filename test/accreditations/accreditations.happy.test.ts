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
    const res = await h.inject({
      method: 'POST',
      url: '/accreditations',
      headers,
      payload: { type: 'income', documentIds, notes: 'W-2 for two years' },
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({
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
    expect((await outbox(h, undefined, 'accreditation.submitted')).some((e) => e.payload.accreditationId === res.json().id)).toBe(true);
  });

  it('an API key submits for a named user; the list answers the user, an admin and the key', async () => {
    const userId = await h.createUser();
    const first = await h.inject({ method: 'POST', url: '/accreditations', headers: h.keyHeaders(), payload: { type: 'net_worth', userId } });
    expect(first.statusCode, first.body).toBe(201);
    expect(first.json().history[0].actor).toEqual({ type: 'apiKey', id: h.tenant.keyId });
    const second = await h.inject({ method: 'POST', url: '/accreditations', headers: h.keyHeaders(), payload: { type: 'entity', userId } });
    const admin = await h.createUser(undefined, undefined, 'admin');
    for (const headers of [h.bearerHeaders(await h.tokenFor(userId)), h.bearerHeaders(await h.tokenFor(admin)), h.keyHeaders()]) {
      const list = await h.inject({ method: 'GET', url: `/accreditations?userId=${userId}`, headers });
      expect(list.statusCode).toBe(200);
      expect(list.json().total).toBe(2);
      expect(list.json().data.map((a: { id: string }) => a.id)).toEqual([second.json().id, first.json().id]);
    }
    const page = await h.inject({ method: 'GET', url: `/accreditations?userId=${userId}&limit=1&offset=1`, headers: h.keyHeaders() });
    expect(page.json()).toMatchObject({ total: 2, data: [{ id: first.json().id }] });
  });

  it('a decision is stored with its reason and actor, written to the outbox, and becomes an identity leaf', async () => {
    const userId = await h.createUser();
    const claim = (await h.inject({ method: 'POST', url: '/accreditations', headers: h.bearerHeaders(await h.tokenFor(userId)), payload: { type: 'professional_certification' } })).json();
    const admin = await h.createUser(undefined, undefined, 'admin');
    h.clock.advance(5000);
    const res = await h.inject({
      method: 'POST',
      url: `/accreditations/${claim.id}/decision`,
      headers: h.bearerHeaders(await h.tokenFor(admin)),
      payload: { decision: 'approved', reason: 'Series 65 licence verified' },
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ id: claim.id, status: 'approved', reason: 'Series 65 licence verified', decidedAt: h.clock.now().toISOString() });
    expect(res.json().history.at(-1)).toEqual({
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
    const proof = await h.inject({ method: 'GET', url: '/kyc/identity/proof?path=accreditation.status', headers });
    expect(proof.json()).toMatchObject({ value: 'approved' });
    expect((await h.inject({ method: 'GET', url: '/kyc/identity/proof?path=accreditation.type', headers })).json().value).toBe('professional_certification');
  });

  it('a rejection is recorded the same way', async () => {
    const userId = await h.createUser();
    const claim = (await h.inject({ method: 'POST', url: '/accreditations', headers: h.keyHeaders(), payload: { type: 'income', userId } })).json();
    const res = await h.inject({ method: 'POST', url: `/accreditations/${claim.id}/decision`, headers: h.keyHeaders(), payload: { decision: 'rejected', reason: 'income below threshold' } });
    expect(res.json()).toMatchObject({ status: 'rejected', reason: 'income below threshold' });
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
        const res = await h.inject({
          method: 'POST',
          url: '/accreditations',
          headers: asKey ? h.keyHeaders() : headers,
          payload: { type: 'income', documentIds, ...(asKey ? { userId } : {}) },
        });
        expect(res.statusCode, res.body).toBe(400);
        expect(res.json().code).toBe('ACCREDITATION_DOCUMENT_UNKNOWN');
      }
    }
    const list = await h.inject({ method: 'GET', url: `/accreditations?userId=${userId}`, headers });
    expect(list.json().total).toBe(0);
    const ok = await h.inject({ method: 'POST', url: '/accreditations', headers: h.keyHeaders(), payload: { type: 'income', documentIds: [mine], userId } });
    expect(ok.statusCode, ok.body).toBe(201);
  });

  it("GET /accreditations/pending: the tenant's pending claims, oldest first, for an admin or the key; a decided claim leaves it", async () => {
    const tenant = await h.newTenant();
    const [ada, bob] = [await h.createUser(tenant), await h.createUser(tenant)];
    const submit = async (userId: string, type: string) => (await h.inject({ method: 'POST', url: '/accreditations', headers: h.keyHeaders(tenant), payload: { type, userId } })).json().id as string;
    const first = await submit(ada, 'income');
    const second = await submit(bob, 'net_worth');
    const third = await submit(ada, 'entity');
    const admin = await h.createUser(tenant, undefined, 'admin');
    const adminHeaders = h.bearerHeaders(await h.tokenFor(admin, tenant, 'admin'), tenant);
    const decided = await h.inject({ method: 'POST', url: `/accreditations/${second}/decision`, headers: adminHeaders, payload: { decision: 'approved' } });
    expect(decided.statusCode).toBe(201);
    for (const headers of [adminHeaders, h.keyHeaders(tenant)]) {
      const res = await h.inject({ method: 'GET', url: '/accreditations/pending', headers });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().total).toBe(2);
      expect(res.json().data.map((a: { id: string }) => a.id)).toEqual([first, third]);
      expect(res.json().data[0]).toMatchObject({ userId: ada, type: 'income', status: 'pending', history: [{ to: 'pending' }] });
    }
    const paged = await h.inject({ method: 'GET', url: '/accreditations/pending?limit=1&offset=1', headers: adminHeaders });
    expect(paged.json()).toMatchObject({ total: 2, data: [{ id: third }] });
    // Another tenant's queue holds none of them.
    const other = await h.inject({ method: 'GET', url: '/accreditations/pending', headers: h.keyHeaders() });
    expect(other.json().data.map((a: { id: string }) => a.id)).not.toContain(first);
  });
});
