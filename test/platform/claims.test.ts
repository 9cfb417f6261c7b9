import { randomUUID } from 'node:crypto';
import { eq, sql, type SQL } from 'drizzle-orm';
import { pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/platform/db/client.js';
import { mailClaimStatement } from '../../src/platform/mail/queue.js';
import { arrayLiteral } from '../../src/platform/db/array-literal.js';
import { createDeliveryRepo, markDeliveredStatement, type ClaimedDelivery } from '../../src/modules/events/delivery-repo.js';
import { leaseColumns, leasedRows } from '../../src/platform/module/in-flight.js';
import { runClaim, runClaimWith } from '../../src/platform/db/claim.js';
import { statementsDuring } from '../helpers/statements.js';
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
  it("an event batch's recording refuses a key that is not a plain array element", () => {
    expect(arrayLiteral(['01a2', 200, 'pending'])).toBe('{01a2,200,pending}');
    for (const bad of ['a,b', '{x}', 'a"b', 'a b', '']) {
      expect(() => markDeliveredStatement([{ tenantId: bad, endpointId: 'e', eventId: 'v', leaseToken: 't' }], new Date(), new Map())).toThrow(/not an array element/);
    }
  });
  it("an event batch's delivered rows are found by their primary key, not the due index", async () => {
    const db = h.database.db;
    const tenant = await h.newTenant();
    const endpointId = randomUUID();
    await db.execute(sql`
      insert into event_endpoints (tenant_id, id, url, types, secret_sealed, enabled, created_at, updated_at)
      values (${tenant.tenantId}::uuid, ${endpointId}::uuid, 'https://example.com/hook', '[]'::jsonb, 'sealed', true, now(), now())`);
    // Deliveries analyzed as delivered, then leased again: the statistics count no pending row.
    await db.execute(sql`
      insert into event_deliveries (tenant_id, endpoint_id, event_id, event_seq, status, attempts, next_attempt_at, queued_at)
      select ${tenant.tenantId}::uuid, ${endpointId}::uuid, gen_random_uuid(), g, 'delivered', 1, now(), now() from generate_series(1, ${BACKLOG}) g`);
    await db.execute(sql`analyze event_deliveries`);
    const token = randomUUID();
    await db.execute(sql`update event_deliveries set status = 'pending', lease_token = ${token}::uuid where tenant_id = ${tenant.tenantId}::uuid`);
    try {
      const picked = (await db.execute(sql`
        select event_id from event_deliveries where tenant_id = ${tenant.tenantId}::uuid order by event_seq limit 128`)) as unknown as { rows: Array<{ event_id: string }> };
      const batch = picked.rows.map((r) => ({ tenantId: tenant.tenantId, endpointId, eventId: r.event_id, leaseToken: token }));
      const nodes = await executedPlan(db, markDeliveredStatement(batch, new Date(), new Map()));
      // The due index, whose pending entries the statistics undercount, is not read (a small
      // table may be read whole instead of by key: a plan its true size justifies).
      const scans = nodes.map((n) => `${String(n['Node Type'])} ${String(n['Index Name'] ?? '')}`);
      expect(scans.filter((scan) => scan.includes('event_deliveries_due_idx')), scans.join('; ')).toEqual([]);

      // And the recording itself: a row of the batch no longer pending, and one leased to
      // another worker since, are left as they are; the others are delivered.
      const [failed, retaken] = [batch[0]!, batch[1]!];
      await db.execute(sql`update event_deliveries set status = 'failed' where tenant_id = ${tenant.tenantId}::uuid and event_id = ${failed.eventId}::uuid`);
      await db.execute(sql`update event_deliveries set lease_token = ${randomUUID()}::uuid where tenant_id = ${tenant.tenantId}::uuid and event_id = ${retaken.eventId}::uuid`);
      const recorded = await createDeliveryRepo(db).markDelivered(batch as ClaimedDelivery[], new Date(), new Map([[batch[2]!.eventId + endpointId, 204]]));
      expect(recorded).toBe(126);
      const states = (await db.execute(sql`
        select event_id, status, last_status, lease_token from event_deliveries
        where tenant_id = ${tenant.tenantId}::uuid and event_id in (${failed.eventId}::uuid, ${retaken.eventId}::uuid, ${batch[2]!.eventId}::uuid)`)) as unknown as {
        rows: Array<{ event_id: string; status: string; last_status: number | null; lease_token: string | null }>;
      };
      const byId = new Map(states.rows.map((r) => [r.event_id, r]));
      expect(byId.get(failed.eventId)).toMatchObject({ status: 'failed', last_status: null });
      expect(byId.get(retaken.eventId)).toMatchObject({ status: 'pending', last_status: null });
      expect(byId.get(batch[2]!.eventId)).toMatchObject({ status: 'delivered', last_status: 204, lease_token: null });
    } finally {
      await db.execute(sql`delete from event_endpoints where tenant_id = ${tenant.tenantId}::uuid`);
    }
  });
});

describe('a claim in index order', () => {
  it('runs with its planner settings in effect, local to it; on a PostgreSQL server as one message (both statements, no BEGIN or COMMIT), its plain parameters written into the text, and through a transaction when one is not plain', async () => {
    const { db, pool } = h.database;
    const at = new Date('2026-01-02T03:04:05.678Z').toISOString();
    const claim = (text: string) =>
      runClaim(
        db,
        sql`select current_setting('enable_sort') as sort, current_setting('jit') as jit, ${text}::text as text, ${42}::int as n, ${at}::timestamptz as at, ${randomUUID()}::uuid as id`,
        { inIndexOrder: true },
      );
    for (const text of ['plain-words_1.2', "it's; select 1 -- not a statement"]) {
      let rows: Array<Record<string, unknown>> = [];
      const statements = await statementsDuring(h.database, async () => {
        rows = await claim(text);
      });
      const calls = pool ? statements : undefined;
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ sort: 'off', jit: 'off', text, n: 42 });
      expect(new Date(rows[0]!.at as string | Date).toISOString()).toBe(at);
      if (calls && text === 'plain-words_1.2') {
        expect(calls, calls.join('\n')).toHaveLength(1);
        expect(calls[0]).toMatch(/set_config\('enable_sort', 'off', true\).*; select current_setting.*'plain-words_1\.2'::text.*'2026-01-02T03:04:05\.678Z'::timestamptz/s);
      } else if (calls) {
        // The quoted value stays a parameter: BEGIN, the settings, the claim, COMMIT.
        expect(calls.map((c) => c.trim().split(/\s/)[0]!.toLowerCase())).toEqual(['begin', 'select', 'select', 'commit']);
        expect(calls.join('\n')).not.toContain("it's");
      }
    }
    // A read the worker needs with its claim goes in the same message when both are plain; its rows are answered apart.
    for (const word of ['plain', "it's"]) {
      let answer: Awaited<ReturnType<typeof runClaimWith>> | undefined;
      const statements = await statementsDuring(h.database, async () => {
        answer = await runClaimWith(db, sql`select current_setting('enable_sort') as sort, ${42}::int as n`, sql`select ${word}::text as word, current_setting('enable_sort') as sort`, {
          inIndexOrder: true,
        });
      });
      // The read runs before the settings: it plans as usual.
      expect(answer!.read).toEqual([{ word, sort: 'on' }]);
      expect(answer!.rows).toEqual([{ sort: 'off', n: 42 }]);
      if (pool && word === 'plain') {
        expect(statements, statements.join('\n')).toHaveLength(1);
        expect(statements[0]).toMatch(/^select 'plain'::text as word.*; select set_config\('enable_sort'.*; select current_setting\('enable_sort'\) as sort, 42::int/s);
      } else if (pool) {
        // Not plain: the read on its own, then the claim's transaction.
        expect(statements.map((c) => c.trim().split(/\s/)[0]!.toLowerCase())).toEqual(['select', 'begin', 'select', 'select', 'commit']);
      }
    }
    // The settings were the claim's transaction's only: the next statement plans as usual.
    const after = (await db.execute(sql`select current_setting('enable_sort') as sort`)) as unknown as { rows: Array<{ sort: string }> };
    expect(after.rows[0]!.sort).toBe('on');
  });
});
