import { and, count, eq, sql } from 'drizzle-orm';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents } from '../../src/modules/audit/table.js';
import { users } from '../../src/modules/users/table.js';
import { ROW_COUNT_SHARDS, rowCounts } from '../../src/platform/db/counters-table.js';
import { createHarness, usingPostgres, type Harness } from '../helpers/harness.js';
import { auditEvents as listAuditEvents, countUsers } from '../helpers/read.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h.close());


describe('trigger-kept row counts, sharded per writing backend', () => {
  it('stay exact under concurrent inserts and deletes from many connections', async () => {
    const t = await h.newTenant();
    const ids = await Promise.all(Array.from({ length: 40 }, (_, i) => h.createUser(t, `shard${i}@example.com`)));
    // No route deletes users; the delete trigger is exercised from the database, in parallel.
    await Promise.all(ids.slice(0, 15).map((id) => h.database.db.delete(users).where(and(eq(users.tenantId, t.tenantId), eq(users.id, id)))));
    const [actual] = await h.database.db.select({ n: count() }).from(users).where(eq(users.tenantId, t.tenantId));
    expect(actual!.n).toBe(25);
    expect(await countUsers(h, t)).toBe(25);
    const shards = await h.database.db
      .select({ shard: rowCounts.shard, n: rowCounts.n })
      .from(rowCounts)
      .where(and(eq(rowCounts.tenantId, t.tenantId), eq(rowCounts.relation, 'users')));
    expect(shards.reduce((sum, s) => sum + s.n, 0)).toBe(25);
    expect(shards.every((s) => s.shard >= 0 && s.shard < ROW_COUNT_SHARDS)).toBe(true);
    // On a server the writes came from several backends, so the count is spread over shards.
    if (usingPostgres) expect(shards.length).toBeGreaterThan(1);
  });

  it('count audit events of concurrent logins without losing one', async () => {
    const t = await h.newTenant();
    const before = (await listAuditEvents(h, { limit: 1 }, t)).total;
    const userId = await h.createUser(t, 'audited@example.com');
    await Promise.all(Array.from({ length: 20 }, () => h.container.auth.mintForUser(t.tenantId, userId, t.keyId, {})));
    const [actual] = await h.database.db.select({ n: count() }).from(auditEvents).where(eq(auditEvents.tenantId, t.tenantId));
    expect(actual!.n).toBe(before + 20);
    expect((await listAuditEvents(h, { limit: 1 }, t)).total).toBe(before + 20);
  });
  it("a write counts in its backend's shard, one of ROW_COUNT_SHARDS", async () => {
    const t = await h.newTenant();
    const { pid, shard } = await h.database.db.transaction(async (tx) => {
      const result = (await tx.execute(sql`select pg_backend_pid() as pid`)) as unknown as { rows: Array<{ pid: number }> };
      await tx.execute(sql`
        insert into audit_events (tenant_id, id, type, actor_type, details, created_at)
        values (${t.tenantId}::uuid, ${randomUUID()}::uuid, 'test.shard', 'system', '{}'::jsonb, now())`);
      const [row] = await tx
        .select({ shard: rowCounts.shard })
        .from(rowCounts)
        .where(and(eq(rowCounts.tenantId, t.tenantId), eq(rowCounts.relation, 'audit_events')));
      return { pid: Number(result.rows[0]!.pid), shard: row!.shard };
    });
    expect(ROW_COUNT_SHARDS).toBe(256);
    expect(shard).toBe(pid % ROW_COUNT_SHARDS);
  });
});
