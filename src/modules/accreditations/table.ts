import { sql } from 'drizzle-orm';
import { index, jsonb, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { tenants } from '../../platform/tenancy/table.js';

export const ACCREDITATION_TYPES = ['income', 'net_worth', 'professional_certification', 'entity', 'knowledgeable_employee', 'other'] as const;
export type AccreditationType = (typeof ACCREDITATION_TYPES)[number];
export type AccreditationStatus = 'pending' | 'approved' | 'rejected';

/** An accreditation claim of a user (US investors) and its decision. */
export const accreditations = pgTable(
  'accreditations',
  {
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    id: uuid('id').notNull(),
    userId: uuid('user_id').notNull(),
    type: text('type').$type<AccreditationType>().notNull(),
    /** Ids of supporting user documents. */
    documentIds: jsonb('document_ids').$type<string[]>().notNull(),
    notes: text('notes'),
    status: text('status').$type<AccreditationStatus>().notNull(),
    reason: text('reason'),
    decidedAt: timestamp('decided_at', { withTimezone: true, mode: 'date' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [
    primaryKey({ name: 'accreditations_pkey', columns: [t.tenantId, t.id] }),
    index('accreditations_tenant_user_idx').on(t.tenantId, t.userId, t.id),
    // The review queue: a tenant's pending claims, oldest first.
    index('accreditations_tenant_pending_idx').on(t.tenantId, t.createdAt, t.id).where(sql`status = 'pending'`),
  ],
);


export type AccreditationRow = typeof accreditations.$inferSelect;
