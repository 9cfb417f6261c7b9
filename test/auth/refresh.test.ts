import { eq } from 'drizzle-orm';
import { refreshTokens } from '../../src/modules/auth/table.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, usingPostgres, type Harness } from '../helpers/harness.js';
import { expectError } from '../helpers/security.js';

let h: Harness;
let userId: string;
beforeAll(async () => {
  h = await createHarness();
  userId = await h.createUser(undefined, 'refresh@example.com');
});
afterAll(async () => h.close());

const refresh = (refreshToken: string, tenantId = h.tenant.tenantId) =>
  h.inject({ method: 'POST', url: '/auth/refresh', headers: { 'x-tenant-id': tenantId }, payload: { refreshToken } });
const start = () => h.container.sessions.start(h.tenant.tenantId, userId, 'user');
const me = (token: string) => h.inject({ method: 'GET', url: '/users/me', headers: h.bearerHeaders(token) });

describe('POST /auth/refresh', () => {
  it('rotates: a new pair each time, the new access token works', async () => {
    const first = await start();
    const second = await refresh(first.refreshToken);
    expect(second.statusCode).toBe(201);
    const pair = second.json();
    expect(pair.refreshToken).not.toBe(first.refreshToken);
    expect(pair.accessToken).not.toBe(first.accessToken);
    expect((await me(pair.accessToken)).statusCode).toBe(200);
    const third = await refresh(pair.refreshToken);
    expect(third.statusCode).toBe(201);
  });

  it('a retry of the same token within 10 seconds returns the same new pair', async () => {
    const first = await start();
    const a = await refresh(first.refreshToken);
    h.clock.advance(9_000);
    const b = await refresh(first.refreshToken);
    expect(b.statusCode).toBe(201);
    expect(b.json()).toEqual(a.json());
  });

  it('a reuse after the window revokes the whole family, and the event is recorded', async () => {
    const first = await start();
    const next = (await refresh(first.refreshToken)).json();
    h.clock.advance(10_001);
    expectError(await refresh(first.refreshToken), 401, 'REFRESH_TOKEN_INVALID');
    // The legitimate successor and its access token die with the family.
    expectError(await refresh(next.refreshToken), 401, 'REFRESH_TOKEN_INVALID');
    expectError(await me(next.accessToken), 401, 'TOKEN_INVALID');
    const events = await h.container.audit.list(h.tenant.tenantId, { type: 'refresh.reused', userId }, { limit: 10, offset: 0 });
    expect(events.data[0]).toMatchObject({ type: 'refresh.reused', subjectUserId: userId, details: { sessionRevoked: true } });
  });

  it('expires after 7 days (injected clock)', async () => {
    const first = await start();
    h.clock.advance(7 * 24 * 3600_000 + 1000);
    expectError(await refresh(first.refreshToken), 401, 'REFRESH_TOKEN_INVALID');
  });

  it('is 401 with another tenant, unknown tokens, and after logout', async () => {
    const other = await h.newTenant();
    const first = await start();
    expectError(await refresh(first.refreshToken, other.tenantId), 401, 'REFRESH_TOKEN_INVALID');
    expectError(await refresh('A'.repeat(43)), 401, 'REFRESH_TOKEN_INVALID');
    await h.inject({ method: 'POST', url: '/auth/logout', headers: h.bearerHeaders(first.accessToken) });
    expectError(await refresh(first.refreshToken), 401, 'REFRESH_TOKEN_INVALID');
  });

  it('400 on a malformed body, 401 without a tenant', async () => {
    expectError(await h.inject({ method: 'POST', url: '/auth/refresh', headers: { 'x-tenant-id': h.tenant.tenantId }, payload: {} }), 400, 'VALIDATION_FAILED');
    expectError(await h.inject({ method: 'POST', url: '/auth/refresh', payload: { refreshToken: 'x' } }), 401, 'TENANT_REQUIRED');
  });

  it('stores refresh tokens only as hashes', async () => {
    const pair = await start();
    const rows = await h.database.db.select().from(refreshTokens);
    expect(JSON.stringify(rows)).not.toContain(pair.refreshToken);
  });

  it.runIf(usingPostgres)('10 concurrent refreshes of one token never mint two families', async () => {
    const first = await start();
    const results = await Promise.all(Array.from({ length: 10 }, () => refresh(first.refreshToken)));
    expect(results.map((r) => r.statusCode)).toEqual(Array(10).fill(201));
    const distinct = new Set(results.map((r) => r.json().refreshToken));
    expect(distinct.size).toBe(1);
    // One claim won: the session holds the first token and exactly one successor.
    const sid = JSON.parse(Buffer.from(first.accessToken.split('.')[1]!, 'base64url').toString()).sid as string;
    const rows = await h.database.db.select().from(refreshTokens).where(eq(refreshTokens.sessionId, sid));
    expect(rows).toHaveLength(2);
    expect((await refresh([...distinct][0]!)).statusCode).toBe(201);
  });
});
