import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { auditEvents } from '../helpers/read.js';
import { expectError, routeCases } from '../helpers/security.js';

let h: Harness;
let userId: string;
beforeAll(async () => {
  h = await createHarness();
  userId = await h.createUser();
});
afterAll(async () => h.close());

/** A new session of the user, as a login from a browser would start it. */
const login = (id = userId, agent = 'Mozilla/5.0 (Test)') => h.container.sessions.start(h.tenant.tenantId, id, 'user', { ip: '203.0.113.7', userAgent: agent });
const refresh = (refreshToken: string) => h.inject({ method: 'POST', url: '/auth/refresh', headers: { 'x-tenant-id': h.tenant.tenantId }, payload: { refreshToken } });
const me = (token: string) => h.inject({ method: 'GET', url: '/users/me', headers: h.bearerHeaders(token) });
const list = (headers: Record<string, string>, id = userId) => h.inject({ method: 'GET', url: `/auth/sessions?userId=${id}`, headers });
const endOne = (headers: Record<string, string>, sessionId: string) => h.inject({ method: 'DELETE', url: `/auth/sessions/${sessionId}`, headers });
const endOthers = (headers: Record<string, string>, id = userId) => h.inject({ method: 'DELETE', url: `/auth/sessions?userId=${id}`, headers });
/** The session id inside an access token (its `sid`). */
const sidOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).sid as string;
const payloadOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;

routeCases(() => h, 'GET /auth/sessions', {
  url: () => `/auth/sessions?userId=${userId}`,
  accepts: { apiKey: true, bearer: 'user' },
});
let foreignSession: { tenantId: string; sessionId: string } | undefined;
routeCases(() => h, 'DELETE /auth/sessions/{sessionId}', {
  url: () => '/auth/sessions/00000000-0000-4000-8000-000000000000',
  accepts: { apiKey: true, bearer: 'user' },
  foreign: async () => {
    const other = await h.newTenant();
    const otherUser = await h.createUser(other);
    const pair = await h.container.sessions.start(other.tenantId, otherUser, 'user');
    foreignSession = { tenantId: other.tenantId, sessionId: sidOf(pair.accessToken) };
    return `/auth/sessions/${foreignSession.sessionId}`;
  },
  unchanged: async () => {
    const row = await h.container.sessions.list(foreignSession!.tenantId, (await sessionOwner(foreignSession!))!, undefined);
    expect(row.map((s) => s.id)).toContain(foreignSession!.sessionId);
  },
});
routeCases(() => h, 'DELETE /auth/sessions', {
  url: () => `/auth/sessions?userId=${userId}`,
  accepts: { apiKey: true, bearer: 'user' },
});

async function sessionOwner(s: { tenantId: string; sessionId: string }): Promise<string | undefined> {
  const { createAuthRepo } = await import('../../src/modules/auth/repo.js');
  return (await createAuthRepo(h.database.db).findSession(s.tenantId, s.sessionId))?.userId;
}

describe('another tenant', () => {
  it("a key naming another tenant's user: 404, and its sessions stay", async () => {
    const other = await h.newTenant();
    const otherUser = await h.createUser(other);
    const pair = await h.container.sessions.start(other.tenantId, otherUser, 'user');
    expectError(await list(h.keyHeaders(), otherUser), 404, 'USER_NOT_FOUND');
    expectError(await endOthers(h.keyHeaders(), otherUser), 404, 'USER_NOT_FOUND');
    const res = await h.inject({ method: 'POST', url: '/auth/refresh', headers: { 'x-tenant-id': other.tenantId }, payload: { refreshToken: pair.refreshToken } });
    expect(res.statusCode).toBe(201);
  });
  it('an API key must name the user (400)', async () => {
    expectError(await h.inject({ method: 'GET', url: '/auth/sessions', headers: h.keyHeaders() }), 400, 'USER_ID_REQUIRED');
    expectError(await h.inject({ method: 'DELETE', url: '/auth/sessions', headers: h.keyHeaders() }), 400, 'USER_ID_REQUIRED');
  });
});

describe('sessions a user can see and end', () => {
  it('lists the live sessions with device, address, times and the current flag', async () => {
    const id = await h.createUser();
    const a = await login(id, 'Browser A');
    const b = await login(id, 'Browser B');
    h.clock.advance(60_000);
    const next = (await refresh(b.refreshToken)).json();
    const res = await list(h.bearerHeaders(a.accessToken), id);
    expect(res.statusCode).toBe(200);
    const data = res.json().data as Array<Record<string, unknown>>;
    expect(data).toHaveLength(2);
    const byId = new Map(data.map((s) => [s.id, s]));
    expect(byId.get(sidOf(a.accessToken))).toMatchObject({ userAgent: 'Browser A', ip: '203.0.113.7', current: true, startedBy: null });
    const sb = byId.get(sidOf(b.accessToken))!;
    expect(sb).toMatchObject({ userAgent: 'Browser B', current: false });
    expect(new Date(sb.lastUsedAt as string).getTime()).toBeGreaterThan(new Date(sb.createdAt as string).getTime());
    expect(sidOf(next.accessToken)).toBe(sb.id);
  });

  it('ends one session: its refresh token at once, its access token on this instance at once', async () => {
    const id = await h.createUser();
    const mine = await login(id);
    const other = await login(id);
    expect((await me(other.accessToken)).statusCode).toBe(200);
    const res = await endOne(h.bearerHeaders(mine.accessToken), sidOf(other.accessToken));
    expect(res.statusCode).toBe(204);
    expectError(await refresh(other.refreshToken), 401, 'REFRESH_TOKEN_INVALID');
    expectError(await me(other.accessToken), 401, 'TOKEN_INVALID');
    expect((await me(mine.accessToken)).statusCode).toBe(200);
    // Ending it again, or an unknown session: 404.
    expectError(await endOne(h.bearerHeaders(mine.accessToken), sidOf(other.accessToken)), 404, 'SESSION_NOT_FOUND');
    const events = await auditEvents(h, { type: 'session.revoked', userId: id });
    expect(events.data[0]).toMatchObject({ details: { sessionId: sidOf(other.accessToken), reason: 'ended_by_user' } });
  });

  it('signs out everywhere but the calling session', async () => {
    const id = await h.createUser();
    const mine = await login(id);
    const others = [await login(id), await login(id)];
    const res = await endOthers(h.bearerHeaders(mine.accessToken), id);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ended: 2 });
    for (const pair of others) {
      expectError(await refresh(pair.refreshToken), 401, 'REFRESH_TOKEN_INVALID');
      expectError(await me(pair.accessToken), 401, 'TOKEN_INVALID');
    }
    expect((await me(mine.accessToken)).statusCode).toBe(200);
    const listed = (await list(h.bearerHeaders(mine.accessToken), id)).json().data;
    expect(listed.map((s: { id: string }) => s.id)).toEqual([sidOf(mine.accessToken)]);
  });

  it("is 404 for another user's sessions as a plain user, and nothing ends", async () => {
    const victim = await h.createUser();
    const victimPair = await login(victim);
    const attacker = await h.createUser();
    const headers = h.bearerHeaders((await login(attacker)).accessToken);
    expectError(await list(headers, victim), 404, 'USER_NOT_FOUND');
    expectError(await endOne(headers, sidOf(victimPair.accessToken)), 404, 'SESSION_NOT_FOUND');
    expectError(await endOthers(headers, victim), 404, 'USER_NOT_FOUND');
    expect((await refresh(victimPair.refreshToken)).statusCode).toBe(201);
  });

  it('an admin or the API key lists and ends any user’s sessions of the tenant', async () => {
    const id = await h.createUser();
    const pair = await login(id);
    const admin = await h.createUser(undefined, undefined, 'admin');
    const adminHeaders = h.bearerHeaders(await h.tokenFor(admin));
    const listed = (await list(adminHeaders, id)).json().data;
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ id: sidOf(pair.accessToken), current: false });
    expect((await endOthers(h.keyHeaders(), id)).json()).toEqual({ ended: 1 });
    expectError(await refresh(pair.refreshToken), 401, 'REFRESH_TOKEN_INVALID');
    const second = await login(id);
    expect((await endOne(adminHeaders, sidOf(second.accessToken))).statusCode).toBe(204);
    const events = await auditEvents(h, { type: 'session.revoked', userId: id });
    expect(events.data[0]).toMatchObject({ actorType: 'user', actorId: admin, details: { reason: 'ended_by_admin' } });
    expectError(await list(h.keyHeaders(), '00000000-0000-4000-8000-000000000000'), 404, 'USER_NOT_FOUND');
  });

  it('a read-only key lists but may not end sessions (403)', async () => {
    const id = await h.createUser();
    const pair = await login(id);
    const key = await h.container.tenants.issueApiKey(h.tenant.tenantId, { scopes: ['read-only'] });
    const headers = { 'x-tenant-id': h.tenant.tenantId, 'x-api-key': key.apiKey };
    expect((await list(headers, id)).statusCode).toBe(200);
    expectError(await endOthers(headers, id), 403, 'FORBIDDEN');
    expectError(await endOne(headers, sidOf(pair.accessToken)), 403, 'FORBIDDEN');
    expect((await refresh(pair.refreshToken)).statusCode).toBe(201);
  });
});

describe('tokens minted by an API key', () => {
  it('carry act naming the key, keep it on refresh, verify, and show in the session list', async () => {
    const id = await h.createUser();
    const res = await h.inject({ method: 'POST', url: `/auth/users/${id}/token`, headers: h.keyHeaders() });
    expect(res.statusCode).toBe(201);
    const pair = res.json();
    expect(payloadOf(pair.accessToken).act).toEqual({ sub: `api-key:${h.tenant.keyId}` });
    expect((await me(pair.accessToken)).statusCode).toBe(200);
    const next = (await refresh(pair.refreshToken)).json();
    expect(payloadOf(next.accessToken).act).toEqual({ sub: `api-key:${h.tenant.keyId}` });
    expect(await h.container.tokens.verify(next.accessToken)).toMatchObject({ sub: id, act: { sub: `api-key:${h.tenant.keyId}` } });
    const listed = (await list(h.keyHeaders(), id)).json().data;
    expect(listed[0]).toMatchObject({ startedBy: `api-key:${h.tenant.keyId}` });
    // A login's token has no act.
    expect(payloadOf((await login(id)).accessToken).act).toBeUndefined();
  });
});
