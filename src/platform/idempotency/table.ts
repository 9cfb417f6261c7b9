import { sql } from 'drizzle-orm';
import { check, index, pgTable, primaryKey, smallint, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { tenants } from '../tenancy/table.js';

export const IDEMPOTENCY_STATES = ['running', 'done'] as const;
export type IdempotencyState = (typeof IDEMPOTENCY_STATES)[number];

/**
 * One row per idempotency key of a value-moving call. The row is inserted before the work runs
 * (the claim: the primary key lets one request in), and holds the first answer once the work
 * has finished; a repeat with the same request replays that answer until the row expires.
 */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    /** The operation, e.g. `POST /non-custodial-evm/transfers` (the route pattern). */
    scope: text('scope').notNull(),
    /** Who called: `user:<id>`, or `service` for the tenant's API keys. */
    caller: text('caller').notNull(),
    key: text('key').notNull(),
    /** SHA-256 (hex) of the canonical JSON of the request. */
    requestHash: text('request_hash').notNull(),
    state: text('state').$type<IdempotencyState>().notNull(),
    /** Random per claim: only the claimant may finish or release it (a taken-over claim is not its own). */
    claimToken: uuid('claim_token').notNull(),
    /** While running: when the claim counts as abandoned (a crashed instance) and may be taken over. */
    leaseUntil: timestamp('lease_until', { withTimezone: true, mode: 'date' }).notNull(),
    statusCode: smallint('status_code'),
    contentType: text('content_type'),
    /** The first answer's body as sent (serialized), replayed byte for byte. */
    body: text('body'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [
    primaryKey({ name: 'idempotency_keys_pkey', columns: [t.tenantId, t.scope, t.caller, t.key] }),
    // The prune deletes across tenants by age: the one index not led by tenant_id (non-unique,
    // so a distributed table may still keep it per shard).
    index('idempotency_keys_expires_idx').on(t.expiresAt),
    check('idempotency_keys_state_check', sql`${t.state} in ('running', 'done')`),
    check('idempotency_keys_done_check', sql`${t.state} = 'running' or (${t.statusCode} is not null and ${t.body} is not null)`),
  ],
);

export type IdempotencyRow = typeof idempotencyKeys.$inferSelect;
