import { sql } from 'drizzle-orm';
import { bigint, bigserial, index, jsonb, pgSequence, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';

/** Stream positions, given to events in commit order by the one dispatcher at a time. */
export const outboxEventPositions = pgSequence('outbox_events_position_seq');

/**
 * Transactional outbox: state changes other services care about are written here in the
 * same transaction as the change, and delivered from here.
 */
export const outboxEvents = pgTable(
  'outbox_events',
  {
    seq: bigserial('seq', { mode: 'number' }).primaryKey(),
    id: uuid('id').notNull(),
    tenantId: uuid('tenant_id').notNull(),
    type: text('type').notNull(),
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    /**
     * When the events module dispatched the event (fanned it out to the tenant's endpoints).
     * Null: not yet dispatched.
     */
    deliveredAt: timestamp('delivered_at', { withTimezone: true, mode: 'date' }),
    /**
     * The event's place in the tenant's pull stream (GET /events?after=), set at dispatch.
     * Dispatch runs one at a time, so positions become visible in increasing order, unlike
     * `seq`, whose values can commit out of order.
     */
    position: bigint('position', { mode: 'number' }),
  },
  (t) => [
    index('outbox_events_pending_idx').on(t.seq).where(sql`delivered_at is null`),
    index('outbox_events_tenant_position_idx').on(t.tenantId, t.position).where(sql`position is not null`),
    index('outbox_events_tenant_created_idx').on(t.tenantId, t.createdAt),
    index('outbox_events_tenant_id_idx').on(t.tenantId, t.id),
  ],
);
