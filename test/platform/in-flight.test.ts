import { randomUUID } from 'node:crypto';
import { sql, eq } from 'drizzle-orm';
import { pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/platform/clock.js';
import { openDatabase, type Database } from '../../src/platform/db/client.js';
import { createInFlightSweeper, inFlightFlow, leaseColumns } from '../../src/platform/module/in-flight.js';

/**
 * The in-flight sweeper shared by every value-moving flow: two instances (two connection pools
 * on one PostgreSQL with DATABASE_URL; one embedded database otherwise) sweeping at once resume
 * each row once; a held lease keeps a row from both; a row left in flight comes back when its
 * lease passes.
 */
const table = `in_flight_probe_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
const probe = pgTable(table, {
  id: text('id').primaryKey(),
  status: text('status').notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull(),
  ...leaseColumns(),
});

let first: Database;
let second: Database;
beforeAll(async () => {
  const url = process.env.DATABASE_URL;
  first = await openDatabase({ databaseUrl: url });
  second = url ? await openDatabase({ databaseUrl: url }) : first;
  await first.db.execute(sql.raw(`create table ${table} (id text primary key, status text not null, updated_at timestamptz not null, lease_until timestamptz, attempts integer not null default 0)`));
});
afterAll(async () => {
  await first.db.execute(sql.raw(`drop table if exists ${table}`));
  if (second !== first) await second.close();
  await first.close();
});

describe('the in-flight sweeper', () => {
  it('two instances sweeping at once resume every row exactly once; held leases are left alone; unfinished rows come back after their lease', async () => {
    const clock = new ManualClock(new Date());
    const now = clock.now();
    const ids = Array.from({ length: 30 }, (_, i) => `row-${String(i).padStart(2, '0')}`);
    await first.db.insert(probe).values(ids.map((id, i) => ({ id, status: 'pending', updatedAt: now, leaseUntil: i === 0 ? new Date(now.getTime() + 60_000) : null })));

    const resumed: string[] = [];
    const instance = (database: Database) => {
      const flow = inFlightFlow(database.db, { name: 'probe', table: probe, id: probe.id, leaseUntil: probe.leaseUntil, attempts: probe.attempts, inFlight: eq(probe.status, 'pending'), order: probe.updatedAt }, async (row) => {
        resumed.push(row.id);
        await new Promise((r) => setTimeout(r, 20));
        // Every row but one finishes; row-29 stays in flight (as if the chain did not answer).
        if (row.id !== 'row-29') await database.db.update(probe).set({ status: 'done' }).where(eq(probe.id, row.id));
      });
      return createInFlightSweeper({ clock, logger: pino({ level: 'silent' }), flows: [flow as never], leaseMs: 5000, batchSize: 50 });
    };
    const a = instance(first);
    const b = instance(second);
    const [n1, n2] = await Promise.all([a.sweepOnce(), b.sweepOnce()]);
    expect(n1 + n2).toBe(29); // row-00's lease is held
    expect([...resumed].sort()).toEqual(ids.slice(1));
    expect(new Set(resumed).size).toBe(resumed.length);

    // Leases hold: nothing is claimed again before they pass.
    expect(await Promise.all([a.sweepOnce(), b.sweepOnce()])).toEqual([0, 0]);
    clock.advance(6000);
    resumed.length = 0;
    await Promise.all([a.sweepOnce(), b.sweepOnce()]);
    expect(resumed).toEqual(['row-29']);
    const [left] = await first.db.select().from(probe).where(eq(probe.id, 'row-29'));
    expect(left!.attempts).toBe(2);
    clock.advance(60_000);
    resumed.length = 0;
    await Promise.all([a.sweepOnce(), b.sweepOnce()]);
    expect(resumed.sort()).toEqual(['row-00', 'row-29']);
  });
});
