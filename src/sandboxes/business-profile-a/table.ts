import { index, jsonb, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { sandboxSchema } from '../pg-schema.js';
import type { WireAddress, WireTask } from '../../providers/business-profile/business-profile-a/protocol.js';

/**
 * State of the built-in business-profile-a sandbox: the businesses its accounts created. The
 * account is the Bastion tenant whose API key called it, so rows lead with tenant_id as every
 * table does. The sandbox keeps only the last four digits of a TIN.
 */
export const businessProfileASandbox = sandboxSchema.table(
  'bp_a_sandbox_businesses',
  {
    tenantId: uuid('tenant_id').notNull(),
    id: text('id').notNull(),
    externalId: text('external_id'),
    name: text('name').notNull(),
    tinLast4: text('tin_last4').notNull(),
    addresses: jsonb('addresses').$type<WireAddress[]>().notNull(),
    people: jsonb('people').$type<Array<{ name: string; titles: Array<{ title: string }> }>>().notNull(),
    website: text('website'),
    status: text('status').notNull(),
    tasks: jsonb('tasks').$type<WireTask[]>().notNull(),
    /** What the last webhook deliveries answered (newest last, at most ten). */
    deliveries: jsonb('deliveries').$type<string[]>().notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [
    primaryKey({ name: 'bp_a_sandbox_businesses_pkey', columns: [t.tenantId, t.id] }),
    uniqueIndex('bp_a_sandbox_businesses_external_unique').on(t.tenantId, t.externalId),
    // The review page opens a business by its id alone (the provider's dashboard link).
    index('bp_a_sandbox_businesses_id_idx').on(t.id),
  ],
);

export type SandboxBusinessRow = typeof businessProfileASandbox.$inferSelect;
