import { sql } from 'drizzle-orm';
import { boolean, index, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { tenants } from '../../platform/tenancy/table.js';

export const USER_ROLES = ['user', 'admin'] as const;
export type UserRole = (typeof USER_ROLES)[number];

export const users = pgTable(
  'users',
  {
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    /** UUIDv7: time ordered, so keyset paging on (tenant_id, id) follows creation order. */
    id: uuid('id').notNull(),
    /** Trimmed and lower-cased; unique per tenant. */
    email: text('email').notNull(),
    fullName: text('full_name'),
    /** E.164. */
    phone: text('phone'),
    role: text('role').$type<UserRole>().notNull().default('user'),
    emailVerified: boolean('email_verified').notNull().default(false),
    kycStatus: text('kyc_status'),
    /** Registered EVM externally owned address (EIP-55 when set by the wallet registry; the filter matches either case). */
    evmEoa: text('evm_eoa'),
    /** Address on the further EVM-compatible chain (EIP-55 when set by the wallet registry). */
    evmCompatibleAddress: text('evm_compatible_address'),
    xrplAddress: text('xrpl_address'),
    xrplSecureAccountAddress: text('xrpl_secure_account_address'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: 'users_pkey', columns: [t.tenantId, t.id] }),
    uniqueIndex('users_tenant_email_unique').on(t.tenantId, t.email),
    uniqueIndex('users_tenant_phone_unique')
      .on(t.tenantId, t.phone)
      .where(sql`${t.phone} is not null`),
    // Partial: only the filters `evmEoa = ...` / `xrplSecureAccountAddress = ...` read them, and
    // most users have neither, so a sign-up does not pay for two index entries of NULL.
    index('users_tenant_evm_eoa_idx')
      .on(t.tenantId, t.evmEoa)
      .where(sql`${t.evmEoa} is not null`),
    index('users_tenant_xrpl_secure_idx')
      .on(t.tenantId, t.xrplSecureAccountAddress)
      .where(sql`${t.xrplSecureAccountAddress} is not null`),
  ],
);

export type UserRow = typeof users.$inferSelect;
export type NewUserRow = typeof users.$inferInsert;
