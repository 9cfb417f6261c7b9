import { bigint, pgTable, primaryKey, text, uuid } from 'drizzle-orm/pg-core';

/**
 * Per-tenant row counts of large tables, kept by statement-level triggers (see the custom
 * migration), so a list's `total` does not cost a scan of a million rows.
 */
export const rowCounts = pgTable(
  'row_counts',
  {
    tenantId: uuid('tenant_id').notNull(),
    relation: text('relation').notNull(),
    n: bigint('n', { mode: 'number' }).notNull().default(0),
  },
  (t) => [primaryKey({ name: 'row_counts_pkey', columns: [t.tenantId, t.relation] })],
);
