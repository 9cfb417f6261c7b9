import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { paths } from '../../clients/typescript/src/schema.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { outbox } from '../helpers/outbox.js';
import { readUser, readKyc } from '../helpers/read.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness({ listen: true });
});
afterAll(async () => h.close());

const DAY = 24 * 60 * 60 * 1000;

type KycInput = paths['/kyc/kyc']['post']['requestBody']['content']['application/json'];

async function manualRecord(userId: string, extra: Partial<KycInput> = {}): Promise<string> {
  const { data, error, response } = await h.api(h.keyHeaders()).POST('/kyc/kyc', { body: { userId, provider: 'manual', ...extra } });
  expect(response.status, JSON.stringify(error)).toBe(201);
  return data!.kycId;
}

describe('POST /kyc and /kyc/idv-a/session', () => {
  it('creates a session at the provider: 201 with kycId and sessionUrl, the record, the event and the profile status', async () => {
    const userId = await h.createUser();
    const headers = h.bearerHeaders(await h.tokenFor(userId));
    for (const url of ['/kyc', '/kyc/idv-a/session'] as const) {
      const { data: body, error, response } = await h.api(headers).POST(url, { body: { firstName: 'Grace', lastName: 'Hopper' } });
      expect(response.status, JSON.stringify(error)).toBe(201);
      expect(body).toEqual({
        kycId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        provider: 'idv-a',
        status: 'created',
        sessionUrl: expect.stringMatching(new RegExp(`^${h.baseUrl}/sandbox/idv-a/s/[0-9a-f-]{36}$`)),
        expiresAt: new Date(h.clock.now().getTime() + 7 * DAY).toISOString(),
      });
      const events = await outbox(h, undefined, 'kyc.created');
      expect(events.some((e) => e.payload.kycId === body!.kycId && e.payload.userId === userId)).toBe(true);
    }
    expect((await readUser(h, userId)).kycStatus).toBe('created');
  });

  it('accepts an empty body', async () => {
    const userId = await h.createUser();
    const { error, response } = await h.api(h.bearerHeaders(await h.tokenFor(userId))).POST('/kyc');
    expect(response.status, JSON.stringify(error)).toBe(201);
  });
});

describe('POST /kyc/kyc', () => {
  it('initiates an idv-a registration for a user with the API key: the back end gets the session URL', async () => {
    const userId = await h.createUser();
    const { data, error, response } = await h.api(h.keyHeaders()).POST('/kyc/kyc', { body: { userId, firstName: 'Ida', level: 'enhanced' } });
    expect(response.status, JSON.stringify(error)).toBe(201);
    expect(data).toMatchObject({ provider: 'idv-a', status: 'created', sessionUrl: expect.stringContaining(`${h.baseUrl}/sandbox/idv-a/s/`) });
    const detail = await readKyc(h, data!.kycId);
    expect(detail).toMatchObject({ userId, firstName: 'Ida', level: 'enhanced', flow: 'session' });
    expect(detail.history[0]!.actor).toEqual({ type: 'apiKey', id: h.tenant.keyId });
    const page = await fetch(data!.sessionUrl!);
    expect(page.status).toBe(200);
  });
});

describe('reading', () => {
  it('GET /kyc?userId= answers the user, an admin and the API key, newest first', async () => {
    const userId = await h.createUser();
    const first = await manualRecord(userId);
    const second = await manualRecord(userId);
    const admin = await h.createUser(undefined, undefined, 'admin');
    for (const headers of [h.bearerHeaders(await h.tokenFor(userId)), h.bearerHeaders(await h.tokenFor(admin)), h.keyHeaders()]) {
      const { data, response } = await h.api(headers).GET('/kyc', { params: { query: { userId } } });
      expect(response.status).toBe(200);
      expect(data!.total).toBe(2);
      expect(data!.data.map((a) => a.kycId)).toEqual([second, first]);
    }
    const page = await h.api(h.keyHeaders()).GET('/kyc', { params: { query: { userId, limit: 1, offset: 1 } } });
    expect(page.data).toMatchObject({ total: 2, data: [{ kycId: first }] });
    // The page and its total are one statement; a page past the end counts on its own.
    const past = await h.api(h.keyHeaders()).GET('/kyc', { params: { query: { userId, limit: 1, offset: 5 } } });
    expect(past.data).toEqual({ total: 2, data: [] });
    const none = await h.api(h.keyHeaders()).GET('/kyc', { params: { query: { userId: await h.createUser() } } });
    expect(none.data).toEqual({ total: 0, data: [] });
  });

  it('GET /kyc/current takes the id in the path or in the query, with the history', async () => {
    const userId = await h.createUser();
    const kycId = await manualRecord(userId, { country: 'de', level: 'enhanced', firstName: 'Emmy' });
    const headers = h.bearerHeaders(await h.tokenFor(userId));
    const byPath = await h.api(headers).GET('/kyc/current/{kycId}', { params: { path: { kycId } } });
    const byQuery = await h.api(headers).GET('/kyc/current', { params: { query: { kycId } } });
    expect(byPath.response.status).toBe(200);
    expect(byQuery.data).toEqual(byPath.data);
    expect(byPath.data).toMatchObject({
      kycId,
      userId,
      provider: 'manual',
      status: 'created',
      country: 'DE',
      level: 'enhanced',
      firstName: 'Emmy',
      sessionUrl: null,
      history: [{ action: 'transition', from: null, to: 'created', actor: { type: 'apiKey', id: h.tenant.keyId } }],
    });
  });

  it("GET /kyc/attempts lists the caller's own attempts only", async () => {
    const userId = await h.createUser();
    const other = await h.createUser();
    const mine = await manualRecord(userId);
    await manualRecord(other);
    const { data, response } = await h.api(h.bearerHeaders(await h.tokenFor(userId))).GET('/kyc/attempts');
    expect(response.status).toBe(200);
    expect(data).toMatchObject({ total: 1, data: [{ kycId: mine, status: 'created' }] });
    const past = await h.api(h.bearerHeaders(await h.tokenFor(userId))).GET('/kyc/attempts', { params: { query: { offset: 1 } } });
    expect(past.data).toEqual({ total: 1, data: [] });
  });

  it('GET /kyc/kycs pages every record of the tenant and filters by status and user', async () => {
    const t = await h.newTenant();
    const users = await Promise.all([1, 2, 3].map(() => h.createUser(t)));
    const ids: string[] = [];
    const api = h.api(h.keyHeaders(t));
    for (const userId of users) {
      const { data } = await api.POST('/kyc/kyc', { body: { userId, provider: 'manual' } });
      ids.push(data!.kycId);
    }
    await api.PUT('/kyc/approve/{kycId}', { params: { path: { kycId: ids[1]! } }, body: {} });
    const all = await api.GET('/kyc/kycs', { params: { query: { limit: 2 } } });
    expect(all.response.status).toBe(200);
    expect(all.data!.total).toBe(3);
    expect(all.data!.data.map((a) => a.kycId)).toEqual([ids[2], ids[1]]);
    const approved = await api.GET('/kyc/kycs', { params: { query: { status: 'approved' } } });
    expect(approved.data).toMatchObject({ total: 1, data: [{ kycId: ids[1], status: 'approved' }] });
    const byUser = await api.GET('/kyc/kycs', { params: { query: { userId: users[0] } } });
    expect(byUser.data).toMatchObject({ total: 1, data: [{ kycId: ids[0] }] });
    const admin = await h.createUser(t, undefined, 'admin');
    const byAdmin = await h.api(h.bearerHeaders(await h.tokenFor(admin, t), t)).GET('/kyc/kycs');
    expect(byAdmin.data!.total).toBe(3);
  });
});

describe('review and manual updates', () => {
  it('the largest update the schema admits is kept whole in the history (names, document type and reason of 4-byte characters)', async () => {
    const userId = await h.createUser();
    const kycId = await manualRecord(userId);
    const wide = (n: number, c: string) => c.repeat(n);
    const first = { firstName: wide(200, '😀'), lastName: wide(200, '😁'), documentType: wide(100, '😂'), reason: wide(1000, '😃') };
    const second = { firstName: wide(200, '😄'), lastName: wide(200, '😅'), documentType: wide(100, '😆'), reason: wide(1000, '😇') };
    for (const payload of [first, second]) {
      const { error, response } = await h.api(h.keyHeaders()).PATCH('/kyc/{kycId}', { params: { path: { kycId } }, body: payload });
      expect(response.status, JSON.stringify(error)).toBe(200);
    }
    const last = (await readKyc(h, kycId)).history.at(-1)!;
    expect(last).toMatchObject({ action: 'update', reason: second.reason });
    expect(last.changes).toEqual({
      firstName: { from: first.firstName, to: second.firstName },
      lastName: { from: first.lastName, to: second.lastName },
      documentType: { from: first.documentType, to: second.documentType },
    });
  });

  it('approve stores who, when, from, to and why, writes kyc.approved and updates the profile', async () => {
    const userId = await h.createUser();
    const kycId = await manualRecord(userId);
    const admin = await h.createUser(undefined, undefined, 'admin');
    h.clock.advance(60_000);
    const { data, error, response } = await h.api(h.bearerHeaders(await h.tokenFor(admin))).PUT('/kyc/approve/{kycId}', {
      params: { path: { kycId } },
      body: { reason: 'documents checked by hand', level: 'enhanced' },
    });
    expect(response.status, JSON.stringify(error)).toBe(200);
    expect(data).toMatchObject({ kycId, status: 'approved', reason: 'documents checked by hand', level: 'enhanced', decidedAt: h.clock.now().toISOString() });
    const detail = await readKyc(h, kycId);
    expect(detail.history.at(-1)).toEqual({
      action: 'transition',
      from: 'created',
      to: 'approved',
      changes: { level: 'enhanced' },
      actor: { type: 'user', id: admin },
      reason: 'documents checked by hand',
      at: h.clock.now().toISOString(),
    });
    const events = await outbox(h, undefined, 'kyc.approved');
    expect(events.find((e) => e.payload.kycId === kycId)?.payload).toMatchObject({
      userId,
      from: 'created',
      to: 'approved',
      reason: 'documents checked by hand',
      actor: { type: 'user', id: admin },
    });
    expect((await readUser(h, userId)).kycStatus).toBe('approved');
  });

  it('reject and request-resubmission store their reason; a resubmitted record can then be approved', async () => {
    const userId = await h.createUser();
    const a = await manualRecord(userId);
    const api = h.api(h.keyHeaders());
    const rejected = await api.PUT('/kyc/reject/{kycId}', { params: { path: { kycId: a } }, body: { reason: 'blurry photo' } });
    expect(rejected.data).toMatchObject({ status: 'declined', reason: 'blurry photo' });
    expect((await outbox(h, undefined, 'kyc.declined')).some((e) => e.payload.kycId === a)).toBe(true);

    const b = await manualRecord(userId);
    const resub = await api.PUT('/kyc/request-resubmission/{kycId}', { params: { path: { kycId: b } }, body: { reason: 'expired passport' } });
    expect(resub.data).toMatchObject({ status: 'resubmission_requested', reason: 'expired passport' });
    expect((await readUser(h, userId)).kycStatus).toBe('resubmission_requested');
    const approved = await api.PUT('/kyc/approve/{kycId}', { params: { path: { kycId: b } } });
    expect(approved.response.status, JSON.stringify(approved.error)).toBe(200);
    expect(approved.data).toMatchObject({ status: 'approved', reason: null });
  });

  it('the latest attempt decides the profile status', async () => {
    const userId = await h.createUser();
    const first = await manualRecord(userId);
    await h.api(h.keyHeaders()).PUT('/kyc/approve/{kycId}', { params: { path: { kycId: first } } });
    expect((await readUser(h, userId)).kycStatus).toBe('approved');
    const second = await manualRecord(userId);
    expect((await readUser(h, userId)).kycStatus).toBe('created');
    await h.api(h.keyHeaders()).PUT('/kyc/reject/{kycId}', { params: { path: { kycId: second } }, body: { reason: 'mismatch' } });
    expect((await readUser(h, userId)).kycStatus).toBe('declined');
  });

  it('PATCH updates fields and audits old and new values', async () => {
    const userId = await h.createUser();
    const kycId = await manualRecord(userId, { firstName: 'Ada' });
    const { data, error, response } = await h.api(h.keyHeaders()).PATCH('/kyc/{kycId}', {
      params: { path: { kycId } },
      body: { firstName: 'Augusta Ada', country: 'gb', dateOfBirth: '1815-12-10', reason: 'typo in the name' },
    });
    expect(response.status, JSON.stringify(error)).toBe(200);
    expect(data).toMatchObject({ firstName: 'Augusta Ada', country: 'GB', dateOfBirth: '1815-12-10', status: 'created' });
    const detail = await readKyc(h, kycId);
    expect(detail.history.at(-1)).toMatchObject({
      action: 'update',
      from: 'created',
      to: 'created',
      changes: {
        firstName: { from: 'Ada', to: 'Augusta Ada' },
        country: { from: null, to: 'GB' },
        dateOfBirth: { from: null, to: '1815-12-10' },
      },
      actor: { type: 'apiKey', id: h.tenant.keyId },
      reason: 'typo in the name',
    });
    const fields = (await outbox(h, undefined, 'kyc.updated')).find((e) => e.payload.kycId === kycId)?.payload.fields as string[];
    expect([...fields].sort()).toEqual(['country', 'dateOfBirth', 'firstName']);
  });
});

describe('expiry', () => {
  it('a session not finished in 7 days becomes expired (by the system), visible on read, and can no longer be approved', async () => {
    const userId = await h.createUser();
    const kycId = await manualRecord(userId);
    h.clock.advance(7 * DAY - 1000);
    const api = h.api(h.keyHeaders());
    const before = await api.GET('/kyc/current/{kycId}', { params: { path: { kycId } } });
    expect(before.data!.status).toBe('created');
    h.clock.advance(1000);
    const after = await api.GET('/kyc/current/{kycId}', { params: { path: { kycId } } });
    expect(after.data).toMatchObject({ status: 'expired', reason: 'session expired' });
    expect(after.data!.history.at(-1)).toMatchObject({ from: 'created', to: 'expired', actor: { type: 'system', id: null } });
    expect((await outbox(h, undefined, 'kyc.expired')).some((e) => e.payload.kycId === kycId)).toBe(true);
    expect((await readUser(h, userId)).kycStatus).toBe('expired');
    const approve = await api.PUT('/kyc/approve/{kycId}', { params: { path: { kycId } } });
    expect(approve.response.status).toBe(409);
    expect(approve.error!.code).toBe('KYC_TRANSITION_INVALID');
  });

  it('lists expire due sessions before counting, so status filters agree with what is shown', async () => {
    const t = await h.newTenant();
    const userId = await h.createUser(t);
    const api = h.api(h.keyHeaders(t));
    const kycId = (await api.POST('/kyc/kyc', { body: { userId, provider: 'manual' } })).data!.kycId;
    expect((await api.GET('/kyc/kycs', { params: { query: { status: 'created' } } })).data!.total).toBe(1);
    h.clock.advance(7 * DAY);
    expect((await api.GET('/kyc/kycs', { params: { query: { status: 'created' } } })).data).toEqual({ total: 0, data: [] });
    expect((await api.GET('/kyc/kycs', { params: { query: { status: 'expired' } } })).data).toMatchObject({
      total: 1,
      data: [{ kycId, status: 'expired' }],
    });
    const attempts = await h.api(h.bearerHeaders(await h.tokenFor(userId, t), t)).GET('/kyc/attempts');
    expect(attempts.data!.data[0]!.status).toBe('expired');
  });

  it("a user's own list expires their due sessions as it reads, even those off the page", async () => {
    const t = await h.newTenant();
    const userId = await h.createUser(t);
    const admin = h.api(h.keyHeaders(t));
    const oldest = (await admin.POST('/kyc/kyc', { body: { userId, provider: 'manual' } })).data!.kycId;
    h.clock.advance(6 * DAY);
    const newer = (await admin.POST('/kyc/kyc', { body: { userId, provider: 'manual' } })).data!.kycId;
    const newest = (await admin.POST('/kyc/kyc', { body: { userId, provider: 'manual' } })).data!.kycId;
    h.clock.advance(DAY);
    // Only the oldest is due; the first page of one shows the newest, which is not.
    const own = h.api(h.bearerHeaders(await h.tokenFor(userId, t), t));
    const first = await own.GET('/kyc/attempts', { params: { query: { limit: 1 } } });
    expect(first.data).toMatchObject({ total: 3, data: [{ kycId: newest, status: 'created' }] });
    const last = await own.GET('/kyc/attempts', { params: { query: { limit: 1, offset: 2 } } });
    expect(last.data).toMatchObject({ total: 3, data: [{ kycId: oldest, status: 'expired', reason: 'session expired' }] });
    expect((await outbox(h, t, 'kyc.expired')).map((e) => e.payload.kycId)).toEqual([oldest]);
    // Nothing more is due: a read changes nothing, and a page past the end has the total.
    const all = await own.GET('/kyc/attempts');
    expect(all.data!.data.map((a) => [a.kycId, a.status])).toEqual([
      [newest, 'created'],
      [newer, 'created'],
      [oldest, 'expired'],
    ]);
    expect((await own.GET('/kyc/attempts', { params: { query: { offset: 5 } } })).data).toEqual({ total: 3, data: [] });
  });
});
