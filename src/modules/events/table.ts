import { sql } from 'drizzle-orm';
import { bigint, boolean, check, foreignKey, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { tenants } from '../../platform/tenancy/table.js';

/** A tenant's receiver of outbound events (Standard Webhooks). */
export const eventEndpoints = pgTable(
  'event_endpoints',
  {
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    id: uuid('id').notNull(),
    url: text('url').notNull(),
    description: text('description'),
    /** Event types delivered here; empty = every type. */
    types: jsonb('types').$type<string[]>().notNull(),
    /** The `whsec_` signing secret, sealed with the SecretBox (context `event-endpoint:<tenant>:<id>`). */
    secretSealed: text('secret_sealed').notNull(),
    /** After a rotation the previous secret also signs until this time, so receivers can roll over. */
    previousSecretSealed: text('previous_secret_sealed'),
    previousSecretExpiresAt: timestamp('previous_secret_expires_at', { withTimezone: true, mode: 'date' }),
    enabled: boolean('enabled').notNull(),
    disabledReason: text('disabled_reason'),
    disabledAt: timestamp('disabled_at', { withTimezone: true, mode: 'date' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [primaryKey({ name: 'event_endpoints_pkey', columns: [t.tenantId, t.id] })],
);

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/**
 * One event to one endpoint. Pending rows are claimed by a worker (FOR UPDATE SKIP LOCKED)
 * which leases them by moving `next_attempt_at` to the lease end and stamping `lease_token`;
 * the outcome is recorded only under that token, so a worker whose lease passed to another
 * records nothing.
 */
export const eventDeliveries = pgTable(
  'event_deliveries',
  {
    tenantId: uuid('tenant_id').notNull(),
    endpointId: uuid('endpoint_id').notNull(),
    /** The event id: the `webhook-id` of every attempt and every replay. */
    eventId: uuid('event_id').notNull(),
    /** outbox_events.seq, to read the event. */
    eventSeq: bigint('event_seq', { mode: 'number' }).notNull(),
    status: text('status').$type<DeliveryStatus>().notNull(),
    attempts: integer('attempts').notNull().default(0),
    /** When the row is due; while leased, the lease end. */
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true, mode: 'date' }).notNull(),
    leaseToken: uuid('lease_token'),
    /** Queued (or re-queued by a replay): the retry window of about three days counts from here. */
    queuedAt: timestamp('queued_at', { withTimezone: true, mode: 'date' }).notNull(),
    lastAttemptAt: timestamp('last_attempt_at', { withTimezone: true, mode: 'date' }),
    lastStatus: integer('last_status'),
    lastError: text('last_error'),
    deliveredAt: timestamp('delivered_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    primaryKey({ name: 'event_deliveries_pkey', columns: [t.tenantId, t.endpointId, t.eventId] }),
    foreignKey({ name: 'event_deliveries_endpoint_fk', columns: [t.tenantId, t.endpointId], foreignColumns: [eventEndpoints.tenantId, eventEndpoints.id] }).onDelete('cascade'),
    // The claim's order (due time, then stream order): the claim reads the first due rows of
    // this index and stops, instead of sorting every pending row (a backlog of 40,000 cost a
    // claim 33 ms of PostgreSQL, sorted on disk).
    index('event_deliveries_due_idx').on(t.nextAttemptAt, t.eventSeq).where(sql`status = 'pending'`),
    index('event_deliveries_delivered_idx').on(t.deliveredAt).where(sql`status = 'delivered'`),
    check('event_deliveries_status_check', sql`${t.status} in ('pending', 'delivered', 'failed')`),
  ],
);

export type EventEndpointRow = typeof eventEndpoints.$inferSelect;
export type EventDeliveryRow = typeof eventDeliveries.$inferSelect;
