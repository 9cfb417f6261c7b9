import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { entityMemberPermissions } from '../../src/modules/entities/table.js';
import { createHarness, usingPostgres, type Harness } from '../helpers/harness.js';
import { outbox } from '../helpers/outbox.js';
import { configureBusinessProfile } from './bp-helpers.js';
import { entityOf, memberWith } from './fixtures.js';

/**
 * Concurrent membership changes of one entity. On PostgreSQL the requests really overlap (a
 * pool of connections); PGlite runs them one at a time, so the same assertions hold there too.
 */
let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h.close());

async function owners(entityId: string) {
  const rows = await h.database.db
    .select()
    .from(entityMemberPermissions)
    .where(and(eq(entityMemberPermissions.tenantId, h.tenant.tenantId), eq(entityMemberPermissions.entityId, entityId), eq(entityMemberPermissions.permission, 'owner')));
  return rows.map((r) => r.userId);
}

describe(`concurrent membership changes (${usingPostgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  it('two owners leaving at once: exactly one leaves, the other is the last owner (409)', async () => {
    for (let round = 0; round < 5; round++) {
      const { entityId, owner: a } = await entityOf(h);
      const b = await memberWith(h, entityId, a.headers, ['owner']);
      const [ra, rb] = await Promise.all([
        h.inject({ method: 'DELETE', url: `/entities/${entityId}/users/${a.userId}`, headers: a.headers }),
        h.inject({ method: 'DELETE', url: `/entities/${entityId}/users/${b.userId}`, headers: b.headers }),
      ]);
      expect([ra.statusCode, rb.statusCode].sort()).toEqual([200, 409]);
      expect([ra, rb].find((r) => r.statusCode === 409)!.json().code).toBe('ENTITY_LAST_OWNER');
      expect(await owners(entityId)).toHaveLength(1);
    }
  });

  it('two owners removing each other at once: one succeeds, the removed one is then outside (404)', async () => {
    for (let round = 0; round < 5; round++) {
      const { entityId, owner: a } = await entityOf(h);
      const b = await memberWith(h, entityId, a.headers, ['owner']);
      const [ra, rb] = await Promise.all([
        h.inject({ method: 'DELETE', url: `/entities/${entityId}/users/${b.userId}`, headers: a.headers }),
        h.inject({ method: 'DELETE', url: `/entities/${entityId}/users/${a.userId}`, headers: b.headers }),
      ]);
      expect([ra.statusCode, rb.statusCode].sort()).toEqual([200, 404]);
      expect(await owners(entityId)).toHaveLength(1);
    }
  });

  it('two owners leaving or dropping owner at once: one owner always remains', async () => {
    for (let round = 0; round < 5; round++) {
      const { entityId, owner: a } = await entityOf(h);
      const b = await memberWith(h, entityId, a.headers, ['owner']);
      const results = await Promise.all([
        h.inject({ method: 'DELETE', url: `/entities/${entityId}/users/${a.userId}/permissions/owner`, headers: a.headers }),
        h.inject({ method: 'DELETE', url: `/entities/${entityId}/users/${b.userId}`, headers: b.headers }),
      ]);
      expect(results.map((r) => r.statusCode).sort()).toEqual([200, 409]);
      expect(await owners(entityId)).toHaveLength(1);
    }
  });

  it('ten concurrent grants of one permission: all 201, one row, one audit event, one outbox event', async () => {
    const { entityId, owner } = await entityOf(h);
    const target = await memberWith(h, entityId, owner.headers, ['view']);
    const results = await Promise.all(
      Array.from({ length: 10 }, () =>
        h.inject({ method: 'POST', url: `/entities/${entityId}/users/${target.userId}/permissions`, headers: owner.headers, payload: { permission: 'invest' } }),
      ),
    );
    expect(results.map((r) => r.statusCode)).toEqual(Array(10).fill(201));
    for (const r of results) expect(r.json().permissions).toEqual(['view', 'invest']);
    const rows = await h.database.db
      .select()
      .from(entityMemberPermissions)
      .where(and(eq(entityMemberPermissions.tenantId, h.tenant.tenantId), eq(entityMemberPermissions.entityId, entityId), eq(entityMemberPermissions.userId, target.userId)));
    expect(rows.map((r) => r.permission).sort()).toEqual(['invest', 'view']);
    expect((await outbox(h, undefined, 'entity.permission_granted')).filter((e) => e.payload.entityId === entityId)).toHaveLength(1);
    const audit = await h.inject({ method: 'GET', url: `/audit-events?type=entity.permission_granted&userId=${target.userId}`, headers: h.keyHeaders() });
    expect(audit.json().total).toBe(1);
  });

  it('concurrent adds of the same user: one 201, the others 409', async () => {
    const { entityId, owner } = await entityOf(h);
    const userId = await h.createUser();
    const results = await Promise.all(
      Array.from({ length: 6 }, () => h.inject({ method: 'POST', url: `/entities/${entityId}/users`, headers: owner.headers, payload: { userId } })),
    );
    expect(results.map((r) => r.statusCode).sort()).toEqual([201, 409, 409, 409, 409, 409]);
  });

  it('concurrent business-profile submissions cannot both go live', async () => {
    // A provider that answers slowly (then fails): while the first submission waits on it, the
    // others meet the live submission (409); none reaches the provider a second time.
    let calls = 0;
    const slow = createServer((_req, res) => {
      calls++;
      setTimeout(() => res.writeHead(500).end('{}'), 300);
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    try {
      const port = (slow.address() as AddressInfo).port;
      const { entityId, owner } = await entityOf(h);
      await configureBusinessProfile(h, h.tenant.tenantId, { baseUrl: `http://127.0.0.1:${port}`, apiKey: 'sk_test_slow', webhookSecret: 'w'.repeat(32) });
      const results = await Promise.all(
        Array.from({ length: 4 }, () => h.inject({ method: 'POST', url: `/entities/${entityId}/business-profile-a`, headers: owner.headers, payload: { tin: '123456789' } })),
      );
      expect(results.map((r) => r.statusCode).sort()).toEqual([409, 409, 409, 503]);
      expect(calls).toBe(1);
    } finally {
      await configureBusinessProfile(h, h.tenant.tenantId, null);
      await new Promise((resolve) => slow.close(resolve));
    }
  });
});
