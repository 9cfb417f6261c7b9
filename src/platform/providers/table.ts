import { pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { tenants } from '../tenancy/table.js';

/**
 * Every inbound provider webhook accepted, by the provider's own event id: one table for all
 * providers (docs/architecture.md, "Providers"). A delivery whose id is here is a duplicate and
 * is answered without being applied again.
 */
export const inboundWebhooks = pgTable(
  'inbound_webhooks',
  {
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    kind: text('kind').notNull(),
    provider: text('provider').notNull(),
    eventId: text('event_id').notNull(),
    /** The delivery's exact bytes, base64, for audit (what was applied may be cleaned text). */
    rawBody: text('raw_body'),
    receivedAt: timestamp('received_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.kind, t.provider, t.eventId] })],
);
