import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { paths } from '../../clients/typescript/src/schema.js';
import { auditContext } from '../../src/modules/audit/context.js';
import { installGuards } from '../../src/platform/http/guards.js';
import { createHarness, type Harness, type TestTenant } from '../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness({
    // A tenant-scoped test route that records an event with the request's context.
    beforeReady: (app) =>
      app.register(async (scope) => {
        installGuards(scope, {
          findTenant: (id) => h.container.guardDeps.findTenant(id),
          verifyApiKey: (tenantId, raw) => h.container.guardDeps.verifyApiKey(tenantId, raw),
          verifyAccessToken: (token) => h.container.guardDeps.verifyAccessToken(token),
        });
        scope.post('/__test/audited', { config: { auth: { apiKey: true, bearer: 'user' } }, schema: { hide: true } }, async (request) => {
          const id = await h.container.audit.record(undefined, request.tenant.id, { type: 'token.minted', ...auditContext(request) });
          return { id };
        });
      }),
  });
});
afterAll(async () => h.close());

type Query = NonNullable<paths['/audit-events']['get']['parameters']['query']>;
const list = async (query: Query, t: TestTenant = h.tenant) => {
  const res = await h.api(h.keyHeaders(t)).GET('/audit-events', { params: { query } });
  expect(res.response.status).toBe(200);
  return res.data!;
};

describe('GET /audit-events', () => {
  it('lists the tenant’s events newest first with every field', async () => {
    const t = await h.newTenant();
    const user = randomUUID();
    const first = await h.container.audit.record(undefined, t.tenantId, {
      type: 'login.failed',
      actorType: 'anonymous',
      subjectUserId: user,
      ip: '203.0.113.9',
      userAgent: 'Mozilla/5.0',
      details: { reason: 'bad_password' },
    });
    h.clock.advance(1_000);
    const second = await h.container.audit.record(undefined, t.tenantId, {
      type: 'login.succeeded',
      actorType: 'user',
      actorId: user,
      subjectUserId: user,
      ip: '2001:db8::1',
    });
    const body = await list({}, t);
    expect(body.total).toBe(2);
    expect(body.data.map((e) => e.id)).toEqual([second, first]);
    expect(body.data[1]).toEqual({
      id: first,
      type: 'login.failed',
      actorType: 'anonymous',
      actorId: null,
      subjectUserId: user,
      objectType: null,
      objectId: null,
      ip: '203.0.113.9',
      userAgent: 'Mozilla/5.0',
      details: { reason: 'bad_password' },
      createdAt: new Date(h.clock.now().getTime() - 1_000).toISOString(),
    });
    expect(body.data[0]).toMatchObject({ type: 'login.succeeded', actorType: 'user', actorId: user, ip: '2001:db8::1', details: {} });
  });

  it('keeps the history of tracked objects: an accreditation claim, submitted then decided, is two events about its user', async () => {
    const t = await h.newTenant();
    const userId = await h.createUser(t);
    const submitted = await h.api(h.bearerHeaders(await h.tokenFor(userId, t), t)).POST('/accreditations', { body: { type: 'income' } });
    expect(submitted.response.status, JSON.stringify(submitted.error)).toBe(201);
    const claim = submitted.data!.id;
    const decided = await h.api(h.keyHeaders(t)).POST('/accreditations/{id}/decision', {
      params: { path: { id: claim } },
      body: { decision: 'approved', reason: 'verified' },
    });
    expect(decided.response.status, JSON.stringify(decided.error)).toBe(201);
    const body = await list({ type: 'accreditation.transition' }, t);
    expect(body.data.map((e) => [e.actorType, e.actorId, e.subjectUserId, e.objectType, e.objectId, e.details])).toEqual([
      ['api_key', t.keyId, userId, 'accreditation', claim, { from: 'pending', to: 'approved', reason: 'verified' }],
      ['user', userId, userId, 'accreditation', claim, { from: null, to: 'pending', reason: null }],
    ]);
    // The claim answers the same history, read from the same rows.
    expect(decided.data!.history.map((s) => [s.to, s.actor])).toEqual([
      ['pending', { type: 'user', id: userId }],
      ['approved', { type: 'apiKey', id: t.keyId }],
    ]);
  });

  it('pages newest first with limit/offset and the beforeId cursor, and filters by userId and type', async () => {
    const t = await h.newTenant();
    const alice = randomUUID();
    const bob = randomUUID();
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      ids.push(
        await h.container.audit.record(undefined, t.tenantId, {
          type: i % 3 === 0 ? 'password.changed' : 'login.succeeded',
          actorType: 'user',
          subjectUserId: i % 2 === 0 ? alice : bob,
        }),
      );
    }
    const newest = [...ids].reverse();

    const page1 = await list({ limit: 5 }, t);
    expect(page1.total).toBe(12);
    expect(page1.data.map((e) => e.id)).toEqual(newest.slice(0, 5));
    const page2 = await list({ limit: 5, beforeId: page1.data[4]!.id }, t);
    expect(page2.data.map((e) => e.id)).toEqual(newest.slice(5, 10));
    const page3 = await list({ limit: 5, beforeId: page2.data[4]!.id }, t);
    expect(page3.data.map((e) => e.id)).toEqual(newest.slice(10));
    expect((await list({ limit: 5, offset: 5 }, t)).data.map((e) => e.id)).toEqual(newest.slice(5, 10));

    const byAlice = await list({ userId: alice }, t);
    expect(byAlice.total).toBe(6);
    expect(byAlice.data.map((e) => e.id)).toEqual(newest.filter((_, i) => (11 - i) % 2 === 0));
    const aliceCursor = await list({ userId: alice, limit: 2, beforeId: byAlice.data[1]!.id }, t);
    expect(aliceCursor.data.map((e) => e.id)).toEqual(byAlice.data.slice(2, 4).map((e) => e.id));

    const changed = await list({ type: 'password.changed' }, t);
    expect(changed.total).toBe(4);
    expect(changed.data.every((e) => e.type === 'password.changed')).toBe(true);
    const both = await list({ type: 'password.changed', userId: bob }, t);
    expect(both.total).toBe(2);
    expect(both.data.map((e) => e.id)).toEqual([ids[9], ids[3]]);
    expect(await list({ userId: randomUUID() }, t)).toEqual({ total: 0, data: [] });
  });

  it('never shows another tenant’s events', async () => {
    const t = await h.newTenant();
    const other = await h.newTenant();
    await h.container.audit.record(undefined, other.tenantId, { type: 'login.succeeded', actorType: 'system' });
    expect(await list({}, t)).toEqual({ total: 0, data: [] });
    expect((await list({}, other)).total).toBe(1);
  });

  it('is open to an admin bearer token', async () => {
    const admin = await h.createUser(undefined, undefined, 'admin');
    const res = await h.api(h.bearerHeaders(await h.tokenFor(admin))).GET('/audit-events', { params: { query: { limit: 1 } } });
    expect(res.response.status).toBe(200);
    expect(res.data).toMatchObject({ total: expect.any(Number), data: expect.any(Array) });
  });
});

describe('audit.record', () => {
  it('commits and rolls back with the caller’s transaction', async () => {
    const t = await h.newTenant();
    const kept = await h.database.db.transaction((tx) =>
      h.container.audit.record(tx, t.tenantId, { type: 'password.changed', actorType: 'user', actorId: randomUUID() }),
    );
    await expect(
      h.database.db.transaction(async (tx) => {
        await h.container.audit.record(tx, t.tenantId, { type: '2fa.enabled', actorType: 'user' });
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    const body = await list({}, t);
    expect(body.data.map((e) => e.id)).toEqual([kept]);
    expect(body.total).toBe(1);
  });

  it('redacts secret-named detail fields, truncates the user agent and drops a non-address ip', async () => {
    const t = await h.newTenant();
    await h.container.audit.record(undefined, t.tenantId, {
      type: 'login.failed',
      actorType: 'anonymous',
      ip: 'not-an-ip',
      userAgent: 'x'.repeat(2_000) + '\n',
      details: { reason: 'bad_password', password: 'hunter2', nested: { refreshToken: 'rt', ok: 1 }, list: [{ otp: '123456' }] },
    });
    const [event] = (await list({}, t)).data;
    expect(event).toMatchObject({
      ip: null,
      userAgent: 'x'.repeat(512),
      details: { reason: 'bad_password', password: '[REDACTED]', nested: { refreshToken: '[REDACTED]', ok: 1 }, list: [{ otp: '[REDACTED]' }] },
    });
    expect(JSON.stringify(event)).not.toMatch(/hunter2|"rt"|123456/);
  });

  it('auditContext takes the actor, ip and user agent from the request', async () => {
    // A test-only route (outside the OpenAPI document), called from a set remote address: raw inject.
    const byKey = await h.inject({
      method: 'POST',
      url: '/__test/audited',
      headers: { ...h.keyHeaders(), 'user-agent': 'bastion-test/1.0' },
      remoteAddress: '198.51.100.7',
    });
    const userId = await h.createUser();
    const byUser = await h.inject({ method: 'POST', url: '/__test/audited', headers: h.bearerHeaders(await h.tokenFor(userId)) });
    expect(byKey.json()).toEqual({ id: expect.any(String) });
    const events = (await list({ type: 'token.minted', limit: 100 })).data;
    expect(events.find((e) => e.id === byKey.json().id)).toMatchObject({
      actorType: 'api_key',
      actorId: h.tenant.keyId,
      ip: '198.51.100.7',
      userAgent: 'bastion-test/1.0',
    });
    expect(events.find((e) => e.id === byUser.json().id)).toMatchObject({ actorType: 'user', actorId: userId });
  });
});
