import { sql } from 'drizzle-orm';
import { boolean, foreignKey, index, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { tenants } from '../../platform/tenancy/table.js';
import { users } from '../users/table.js';
import type { Permission } from './permissions.js';

export const ENTITY_TYPES = ['company', 'fund', 'trust', 'partnership', 'other'] as const;
export type EntityType = (typeof ENTITY_TYPES)[number];

export interface EntityAddress {
  line1: string;
  line2?: string;
  city: string;
  region?: string;
  postalCode?: string;
  country: string;
}

const tenantRef = () =>
  uuid('tenant_id')
    .notNull()
    .references(() => tenants.id, { onDelete: 'cascade' });
const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** A legal entity or fund of a tenant. */
export const entities = pgTable(
  'entities',
  {
    tenantId: tenantRef(),
    id: uuid('id').notNull(),
    legalName: text('legal_name').notNull(),
    type: text('type').$type<EntityType>().notNull(),
    /** ISO 3166-1 alpha-2. */
    jurisdiction: text('jurisdiction').notNull(),
    registrationNumber: text('registration_number').notNull(),
    /** ISO 17442 Legal Entity Identifier, checksum verified; unique per tenant. */
    lei: text('lei'),
    address: jsonb('address').$type<EntityAddress>().notNull(),
    metadata: jsonb('metadata').$type<Record<string, unknown>>().notNull(),
    createdBy: text('created_by'),
    createdAt: at('created_at').notNull(),
    updatedAt: at('updated_at').notNull(),
  },
  (t) => [
    primaryKey({ name: 'entities_pkey', columns: [t.tenantId, t.id] }),
    uniqueIndex('entities_tenant_lei_unique')
      .on(t.tenantId, t.lei)
      .where(sql`${t.lei} is not null`),
  ],
);

/** A user's membership of an entity. */
export const entityMembers = pgTable(
  'entity_members',
  {
    tenantId: tenantRef(),
    entityId: uuid('entity_id').notNull(),
    userId: uuid('user_id').notNull(),
    addedBy: text('added_by'),
    createdAt: at('created_at').notNull(),
  },
  (t) => [
    primaryKey({ name: 'entity_members_pkey', columns: [t.tenantId, t.entityId, t.userId] }),
    index('entity_members_tenant_user_idx').on(t.tenantId, t.userId, t.entityId),
    foreignKey({ name: 'entity_members_entity_fk', columns: [t.tenantId, t.entityId], foreignColumns: [entities.tenantId, entities.id] }).onDelete('cascade'),
    foreignKey({ name: 'entity_members_user_fk', columns: [t.tenantId, t.userId], foreignColumns: [users.tenantId, users.id] }).onDelete('cascade'),
  ],
);

/** One row per permission a member holds: a grant is an insert that does nothing when present. */
export const entityMemberPermissions = pgTable(
  'entity_member_permissions',
  {
    tenantId: tenantRef(),
    entityId: uuid('entity_id').notNull(),
    userId: uuid('user_id').notNull(),
    permission: text('permission').$type<Permission>().notNull(),
    grantedBy: text('granted_by'),
    createdAt: at('created_at').notNull(),
  },
  (t) => [
    primaryKey({ name: 'entity_member_permissions_pkey', columns: [t.tenantId, t.entityId, t.userId, t.permission] }),
    foreignKey({
      name: 'entity_member_permissions_member_fk',
      columns: [t.tenantId, t.entityId, t.userId],
      foreignColumns: [entityMembers.tenantId, entityMembers.entityId, entityMembers.userId],
    }).onDelete('cascade'),
  ],
);

export const PAYMENT_METHOD_KINDS = ['bank_wire', 'ach', 'crypto'] as const;
export type PaymentMethodKind = (typeof PAYMENT_METHOD_KINDS)[number];

/** A manual payment method: the public details in clear, account numbers and IBANs sealed. */
export const entityPaymentMethods = pgTable(
  'entity_payment_methods',
  {
    tenantId: tenantRef(),
    id: uuid('id').notNull(),
    entityId: uuid('entity_id').notNull(),
    kind: text('kind').$type<PaymentMethodKind>().notNull(),
    label: text('label'),
    currency: text('currency').notNull(),
    /** Everything but the sealed fields. */
    details: jsonb('details').$type<Record<string, string>>().notNull(),
    /** SecretBox-sealed JSON of the sensitive fields (iban, accountNumber), or null. */
    sensitiveSealed: text('sensitive_sealed'),
    /** The last four characters of each sealed field, for the masked answer. */
    sensitiveLast4: jsonb('sensitive_last4').$type<Record<string, string>>().notNull(),
    archived: boolean('archived').notNull().default(false),
    createdBy: text('created_by'),
    createdAt: at('created_at').notNull(),
    updatedAt: at('updated_at').notNull(),
  },
  (t) => [
    primaryKey({ name: 'entity_payment_methods_pkey', columns: [t.tenantId, t.id] }),
    index('entity_payment_methods_tenant_entity_idx').on(t.tenantId, t.entityId, t.id),
    foreignKey({ name: 'entity_payment_methods_entity_fk', columns: [t.tenantId, t.entityId], foreignColumns: [entities.tenantId, entities.id] }).onDelete('cascade'),
  ],
);

export const PROFILE_STATUSES = ['submitting', 'pending', 'in_review', 'approved', 'rejected', 'failed'] as const;
export type ProfileStatus = (typeof PROFILE_STATUSES)[number];

/** A submission of an entity to a business-profile provider; the newest is the entity's profile. */
export const businessProfiles = pgTable(
  'business_profiles',
  {
    tenantId: tenantRef(),
    id: uuid('id').notNull(),
    entityId: uuid('entity_id').notNull(),
    provider: text('provider').notNull(),
    providerBusinessId: text('provider_business_id'),
    status: text('status').$type<ProfileStatus>().notNull(),
    tasks: jsonb('tasks').$type<Array<Record<string, string>>>().notNull(),
    tinSealed: text('tin_sealed').notNull(),
    tinLast4: text('tin_last4').notNull(),
    failure: text('failure'),
    submittedBy: text('submitted_by'),
    /** The provider's updated_at of the state applied last: older webhooks change nothing. */
    providerUpdatedAt: at('provider_updated_at'),
    createdAt: at('created_at').notNull(),
    updatedAt: at('updated_at').notNull(),
  },
  (t) => [
    primaryKey({ name: 'business_profiles_pkey', columns: [t.tenantId, t.id] }),
    index('business_profiles_tenant_entity_idx').on(t.tenantId, t.entityId, t.id),
    foreignKey({ name: 'business_profiles_entity_fk', columns: [t.tenantId, t.entityId], foreignColumns: [entities.tenantId, entities.id] }).onDelete('cascade'),
    // The review queue: a tenant's profiles awaiting the provider's decision, oldest first.
    index('business_profiles_tenant_awaiting_idx')
      .on(t.tenantId, t.createdAt, t.id)
      .where(sql`${t.status} in ('pending', 'in_review')`),
    // At most one live submission per entity and provider: a second is 409.
    uniqueIndex('business_profiles_live_unique')
      .on(t.tenantId, t.entityId, t.provider)
      .where(sql`${t.status} in ('submitting', 'pending', 'in_review', 'approved')`),
  ],
);

export type EntityRow = typeof entities.$inferSelect;
export type EntityMemberRow = typeof entityMembers.$inferSelect;
export type PaymentMethodRow = typeof entityPaymentMethods.$inferSelect;
export type BusinessProfileRow = typeof businessProfiles.$inferSelect;
