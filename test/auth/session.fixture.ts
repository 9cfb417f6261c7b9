import { and, count, eq } from 'drizzle-orm';
import { afterAll, beforeAll } from 'vitest';
import { auditEvents } from '../../src/modules/audit/table.js';
import { sessions } from '../../src/modules/auth/table.js';
import { createHarness, type Harness } from '../helpers/harness.js';

/**
 * The session tests' shared setup: an app and one user (`env.h`, `env.userId`, set before the
 * file's own beforeAll hooks run), and the calls every file makes.
 */
export function sessionFixture() {
  const env = {} as { h: Harness; userId: string };
  beforeAll(async () => {
    env.h = await createHarness();
    env.userId = await env.h.createUser(undefined, 'refresh@example.com');
  });
  afterAll(async () => env.h?.close());

  return {
    env,
    refresh: (refreshToken: string, tenantId = env.h.tenant.tenantId) =>
      env.h.inject({ method: 'POST', url: '/auth/refresh', headers: { 'x-tenant-id': tenantId }, payload: { refreshToken } }),
    /** A new session of the user, as login would start it. */
    start: () => env.h.container.sessions.start(env.h.tenant.tenantId, env.userId, 'user'),
    me: (token: string) => env.h.inject({ method: 'GET', url: '/users/me', headers: env.h.bearerHeaders(token) }),
    /** The user's stored sessions and audit events (to prove a refused call changed nothing). */
    async counts(tenantId: string, userId: string) {
      const db = env.h.database.db;
      const [s] = await db.select({ n: count() }).from(sessions).where(and(eq(sessions.tenantId, tenantId), eq(sessions.userId, userId)));
      const [a] = await db.select({ n: count() }).from(auditEvents).where(and(eq(auditEvents.tenantId, tenantId), eq(auditEvents.subjectUserId, userId)));
      return { sessions: s!.n, audit: a!.n };
    },
  };
}
