import { and, count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents } from '../../src/modules/audit/table.js';
import { sessions } from '../../src/modules/auth/table.js';
import { createHarness, type Harness } from '../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h.close());

async function counts(tenantId: string, userId: string) {
  const db = h.database.db;
  const [s] = await db.select({ n: count() }).from(sessions).where(and(eq(sessions.tenantId, tenantId), eq(sessions.userId, userId)));
  const [a] = await db
    .select({ n: count() })
    .from(auditEvents)
    .where(and(eq(auditEvents.tenantId, tenantId), eq(auditEvents.subjectUserId, userId)));
  return { sessions: s!.n, audit: a!.n };
}

describe('a session and its audit event are one statement', () => {
  it('login writes the session, its refresh token and login.succeeded together', async () => {
    const t = await h.newTenant();
    const email = 'together@example.com';
    const registered = await h.inject({
      method: 'POST',
      url: '/auth/email',
      headers: { 'x-tenant-id': t.tenantId },
      payload: { email, password: 'a long passphrase here' },
    });
    expect(registered.statusCode).toBe(201);
    const userId = registered.json<{ id: string }>().id;
    const before = await counts(t.tenantId, userId);
    const login = await h.inject({ method: 'POST', url: '/auth/email/login', headers: { 'x-tenant-id': t.tenantId }, payload: { email, password: 'a long passphrase here' } });
    expect(login.statusCode).toBe(201);
    const after = await counts(t.tenantId, userId);
    expect(after).toEqual({ sessions: before.sessions + 1, audit: before.audit + 1 });
    // The refresh token of that session works.
    const refreshed = await h.inject({ method: 'POST', url: '/auth/refresh', headers: { 'x-tenant-id': t.tenantId }, payload: { refreshToken: login.json<{ refreshToken: string }>().refreshToken } });
    expect(refreshed.statusCode).toBe(201);
  });

  it('when one write fails, none is kept: no session without its event', async () => {
    const t = await h.newTenant();
    const userId = await h.createUser(t, 'atomic@example.com');
    // The same audit row twice: the second insert of the statement breaks the primary key.
    const statement = h.container.audit.statement(t.tenantId, { type: 'token.minted', actorType: 'system', subjectUserId: userId });
    await expect(h.container.sessions.start(t.tenantId, userId, 'user', {}, { alsoWrite: [statement, statement] })).rejects.toThrow();
    expect(await counts(t.tenantId, userId)).toEqual({ sessions: 0, audit: 0 });
    await h.container.sessions.start(t.tenantId, userId, 'user', {}, { alsoWrite: [statement] });
    expect(await counts(t.tenantId, userId)).toEqual({ sessions: 1, audit: 1 });
  });
});
