import { and, count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents } from '../../src/modules/audit/table.js';
import { sessions } from '../../src/modules/auth/table.js';
import { createHarness, type Harness } from '../helpers/harness.js';
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

async function counts(tenantId: string, userId: string) {
  const db = h.database.db;
  const [s] = await db.select({ n: count() }).from(sessions).where(and(eq(sessions.tenantId, tenantId), eq(sessions.userId, userId)));
  const [a] = await db
    .select({ n: count() })
    .from(auditEvents)
    .where(and(eq(auditEvents.tenantId, tenantId), eq(auditEvents.subjectUserId, userId)));
  return { sessions: s!.n, audit: a!.n };
}

describe('POST /auth/refresh', () => {
  it('expires after 7 days (injected clock)', async () => {
    const first = await start();
    h.clock.advance(7 * 24 * 3600_000 + 1000);
    expectError(await refresh(first.refreshToken), 401, 'REFRESH_TOKEN_INVALID');
  });

  it('400 on a malformed body, 401 without a tenant', async () => {
    expectError(await h.inject({ method: 'POST', url: '/auth/refresh', headers: { 'x-tenant-id': h.tenant.tenantId }, payload: {} }), 400, 'VALIDATION_FAILED');
    expectError(await h.inject({ method: 'POST', url: '/auth/refresh', payload: { refreshToken: 'x' } }), 401, 'TENANT_REQUIRED');
  });
});

describe('a session and its audit event are one statement', () => {
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
