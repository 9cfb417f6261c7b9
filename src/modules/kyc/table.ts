import { sql } from 'drizzle-orm';
import { boolean, index, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { tenants } from '../../platform/tenancy/table.js';
import type { KycStatus } from './state.js';

export type KycProvider = 'idv-a' | 'idv-b' | 'manual';

/** One KYC attempt of a user. The latest attempt decides the user's KYC status. */
export const kycRecords = pgTable(
  'kyc_records',
  {
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    /** UUIDv7: time ordered, so the latest attempt of a user is the greatest id. */
    id: uuid('id').notNull(),
    userId: uuid('user_id').notNull(),
    provider: text('provider').$type<KycProvider>().notNull(),
    /** The provider's session id (idv-a verification id, idv-b session id); null for manual records. */
    providerSessionId: text('provider_session_id'),
    sessionUrl: text('session_url'),
    /** 'session' (idv-a), 'web3' or 'regular' (idv-b), 'manual'. */
    flow: text('flow').notNull(),
    status: text('status').$type<KycStatus>().notNull(),
    /** The reason of the latest transition (decline reason, resubmission request...). */
    reason: text('reason'),
    firstName: text('first_name'),
    lastName: text('last_name'),
    dateOfBirth: text('date_of_birth'),
    /** ISO 3166-1 alpha-2, upper case. */
    country: text('country'),
    documentType: text('document_type'),
    level: text('level').notNull().default('basic'),
    /** Wallet of an idv-b web3 attempt, and the challenge the wallet signs. */
    walletAddress: text('wallet_address'),
    walletChain: text('wallet_chain'),
    challenge: text('challenge'),
    walletVerified: boolean('wallet_verified').notNull().default(false),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    decidedAt: timestamp('decided_at', { withTimezone: true, mode: 'date' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [
    primaryKey({ name: 'kyc_records_pkey', columns: [t.tenantId, t.id] }),
    index('kyc_records_tenant_user_idx').on(t.tenantId, t.userId, t.id),
    index('kyc_records_tenant_status_idx').on(t.tenantId, t.status, t.id),
    uniqueIndex('kyc_records_tenant_session_unique')
      .on(t.tenantId, t.provider, t.providerSessionId)
      .where(sql`${t.providerSessionId} is not null`),
  ],
);


export type KycRow = typeof kycRecords.$inferSelect;
export type NewKycRow = typeof kycRecords.$inferInsert;
