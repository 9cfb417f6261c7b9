import { and, eq, sql, type Placeholder } from 'drizzle-orm';
import { bigint, pgTable, primaryKey, smallint, text, uuid } from 'drizzle-orm/pg-core';
import type { DbOrTx } from './client.js';

/** Shards per (tenant, table) counter: the triggers (migrations 0009, 0038) add to shard pg_backend_pid() % 256. */
export const ROW_COUNT_SHARDS = 256;

/**
 * Per-tenant row counts of large tables, kept by statement-level triggers (see the custom
 * migrations 0001 and 0009), so a list's `total` does not cost a scan of a million rows. Each
 * count is spread over ROW_COUNT_SHARDS rows (the shard of the writing backend): with one row,
 * every insert of a tenant waited for the previous one's commit on that row (audit events of
 * logins: ~1,100 inserts/s at most, ~0.6 ms of PostgreSQL CPU each in lock waits). The count
 * is the sum of the shards. 256, not 16: two connections of the pool (20 by default) whose pids
 * fall on one shard wait for each other's commit on its row; with 16 shards some always did
 * (0.67 of 32 decision webhooks in flight waiting on average, blocked by transactions still
 * recomputing an identity root). A tenant's count sums at most 256 rows per table.
 */
export const rowCounts = pgTable(
  'row_counts',
  {
    tenantId: uuid('tenant_id').notNull(),
    relation: text('relation').notNull(),
    shard: smallint('shard').notNull().default(0),
    /** May be negative in one shard (deleted where others inserted); the sum is exact. */
    n: bigint('n', { mode: 'number' }).notNull().default(0),
  },
  (t) => [primaryKey({ name: 'row_counts_pkey', columns: [t.tenantId, t.relation, t.shard] })],
);

/** The select of a tenant's row count of `relation`: tenantId as given (a value or a placeholder). */
export function rowCountQuery(q: DbOrTx, relation: string, tenantId: string | Placeholder) {
  return q
    .select({ n: sql<number>`coalesce(sum(${rowCounts.n}), 0)`.mapWith(Number) })
    .from(rowCounts)
    .where(and(eq(rowCounts.tenantId, tenantId), eq(rowCounts.relation, relation)));
}
