import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { refreshTokens } from '../../src/modules/auth/table.js';
import { usingPostgres, type Harness } from '../helpers/harness.js';
import { sessionFixture } from './session.fixture.js';

const fx = sessionFixture();
const { refresh, start, me, counts } = fx;
let h: Harness;
beforeAll(() => ({ h } = fx.env));

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

describe('a session and its audit event are one statement', () => {
  it('login writes the session, its refresh token and login.succeeded together', async () => {
    const t = await h.newTenant();
    const email = 'together@example.com';
    const api = h.api({ 'x-tenant-id': t.tenantId });
    const registered = await api.POST('/auth/email', { body: { email, password: 'a long passphrase here' } });
    expect(registered.response.status).toBe(201);
    const userId = registered.data!.id;
    const before = await counts(t.tenantId, userId);
    const login = await api.POST('/auth/email/login', { body: { email, password: 'a long passphrase here' } });
    expect(login.response.status).toBe(201);
    const after = await counts(t.tenantId, userId);
    expect(after).toEqual({ sessions: before.sessions + 1, audit: before.audit + 1 });
    // The refresh token of that session works.
    const tokens = login.data as { refreshToken: string };
    const refreshed = await api.POST('/auth/refresh', { body: { refreshToken: tokens.refreshToken } });
    expect(refreshed.response.status).toBe(201);
  });
});
