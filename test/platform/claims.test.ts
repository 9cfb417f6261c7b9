import { randomUUID } from 'node:crypto';
import { eq, sql, type SQL } from 'drizzle-orm';
import { pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/platform/db/client.js';
import { mailClaimStatement } from '../../src/platform/mail/queue.js';
import { leaseColumns, leasedRows } from '../../src/platform/module/in-flight.js';
import { createHarness, type Harness } from '../helpers/harness.js';

/**
 * A queue's claim under a backlog PostgreSQL's statistics do not know of yet (rows analyzed as
 * finished, then queued again): the pick runs once, whatever the planner counts. Written as
 * `where key in (select ... limit n for update skip locked)`, the planner made it a nested-loop
 * semi join that ran the pick again for every queued row (20,000 mails: 81 s for one claim);
 * these cases count the pick's runs in the executed plan (EXPLAIN ANALYZE, rolled back).
 */
const BACKLOG = 5_000;
let h: Harness;
const probeName = `claim_probe_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
const probe = pgTable(probeName, {
  id: text('id').primaryKey(),
  status: text('status').notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull(),
  ...leaseColumns(),
});
beforeAll(async () => {
  h = await createHarness();
  await h.database.db.execute(sql.raw(`create table ${probeName} (id text primary key, status text not null, updated_at timestamptz not null, lease_until timestamptz, attempts integer not null default 0)`));
});
afterAll(async () => {
  await h.database.db.execute(sql.raw(`drop table if exists ${probeName}`));
  await h.close();
});

class RolledBack extends Error {}

/** The executed plan of `statement` (EXPLAIN ANALYZE, FORMAT JSON), its effects rolled back: every node, flattened. */
async function executedPlan(db: Db, statement: SQL): Promise<Array<Record<string, unknown>>> {
  let plan: unknown;
  await db
    .transaction(async (tx) => {
      const result = await tx.execute(sql`explain (analyze, format json) ${statement}`);
      const cell = (result as unknown as { rows: Array<Record<string, unknown>> }).rows[0]!['QUERY PLAN'];
      plan = typeof cell === 'string' ? JSON.parse(cell) : cell;
      throw new RolledBack();
    })
    .catch((error: unknown) => {
      if (!(error instanceof RolledBack)) throw error;
    });
  const nodes: Array<Record<string, unknown>> = [];
  const walk = (node: Record<string, unknown>) => {
    nodes.push(node);
    for (const child of (node.Plans as Array<Record<string, unknown>> | undefined) ?? []) walk(child);
  };
  walk((plan as Array<{ Plan: Record<string, unknown> }>)[0]!.Plan);
  return nodes;
}

/** The pick (its LIMIT) ran once and took `limit` rows; the claim leased them. */
function expectPickedOnce(nodes: Array<Record<string, unknown>>, limit: number) {
  const limits = nodes.filter((n) => n['Node Type'] === 'Limit');
  expect(limits.length).toBeGreaterThan(0);
  for (const node of limits) expect(node['Actual Loops'], JSON.stringify(node)).toBe(1);
  expect(limits.some((n) => n['Actual Rows'] === limit)).toBe(true);
  const update = nodes.find((n) => n['Node Type'] === 'ModifyTable')!;
  expect(update.Plans).toBeDefined();
}

describe('claims under a backlog the statistics lag', () => {
  it('the mail queue picks its due rows once', async () => {
    const db = h.database.db;
    const tenant = await h.newTenant();
    await db.execute(sql`
      insert into mail_outbox (tenant_id, id, "to", subject, text, html, status)
      select ${tenant.tenantId}::uuid, gen_random_uuid(), 'someone@example.com', 's', 't', 'h', 'sent' from generate_series(1, ${BACKLOG}) g`);
    await db.execute(sql`analyze mail_outbox`);
    await db.execute(sql`update mail_outbox set status = 'pending' where tenant_id = ${tenant.tenantId}::uuid`);
    try {
      const now = new Date();
      expectPickedOnce(await executedPlan(db, mailClaimStatement(now, 10, new Date(now.getTime() + 60_000), [tenant.tenantId])), 10);
    } finally {
      await db.execute(sql`delete from mail_outbox where tenant_id = ${tenant.tenantId}::uuid`);
    }
  });

  it('an in-flight sweep picks its due rows once', async () => {
    const db = h.database.db;
    await db.execute(sql.raw(`insert into ${probeName} (id, status, updated_at) select 'row-' || g, 'done', now() from generate_series(1, ${BACKLOG}) g`));
    await db.execute(sql.raw(`analyze ${probeName}`));
    await db.execute(sql.raw(`update ${probeName} set status = 'pending'`));
    const rows = leasedRows({ name: 'probe', table: probe, id: probe.id, leaseUntil: probe.leaseUntil, attempts: probe.attempts, inFlight: eq(probe.status, 'pending'), order: probe.updatedAt });
    const now = new Date();
    expectPickedOnce(await executedPlan(db, rows.claimStatement(now, new Date(now.getTime() + 60_000), 50)), 50);
    // And the claim itself: 50 rows, leased, attempts counted, mapped to the table's row objects.
    const claimed = await rows.claim(db, now, new Date(now.getTime() + 60_000), 50);
    expect(claimed).toHaveLength(50);
    expect(claimed[0]).toMatchObject({ status: 'pending', attempts: 1 });
    expect(claimed[0]!.leaseUntil).toBeInstanceOf(Date);
    expect(claimed[0]!.updatedAt).toBeInstanceOf(Date);
  });
});
