import { index, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { tenants } from '../../platform/tenancy/table.js';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

export type BankLinkItemStatus = 'active' | 'login_required' | 'pending_expiration' | 'revoked';

export interface StoredAccount {
  accountId: string;
  name: string;
  officialName: string | null;
  mask: string | null;
  type: string;
  subtype: string | null;
}

/** A linked bank login (item) of a user, or of the tenant itself (user_id null). */
export const bankLinkItems = pgTable(
  'bank_link_items',
  {
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    id: uuid('id').notNull(),
    userId: uuid('user_id'),
    providerItemId: text('provider_item_id').notNull(),
    /** Never answered, never logged. */
    accessTokenSealed: text('access_token_sealed').notNull(),
    institutionId: text('institution_id'),
    institutionName: text('institution_name'),
    accounts: jsonb('accounts').$type<StoredAccount[]>().notNull(),
    status: text('status').$type<BankLinkItemStatus>().notNull(),
    errorCode: text('error_code'),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [
    primaryKey({ name: 'bank_link_items_pkey', columns: [t.tenantId, t.id] }),
    uniqueIndex('bank_link_items_provider_item_unique').on(t.tenantId, t.providerItemId),
    index('bank_link_items_tenant_user_idx').on(t.tenantId, t.userId, t.id),
  ],
);

/** Originators the tenant created through the sandbox routes, with their last known diligence. */
export const bankLinkOriginators = pgTable(
  'bank_link_originators',
  {
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    originatorClientId: text('originator_client_id').notNull(),
    companyName: text('company_name').notNull(),
    diligenceStatus: text('diligence_status').notNull(),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [primaryKey({ name: 'bank_link_originators_pkey', columns: [t.tenantId, t.originatorClientId] })],
);

export type BankLinkItemRow = typeof bankLinkItems.$inferSelect;
export type BankLinkOriginatorRow = typeof bankLinkOriginators.$inferSelect;
