import { index, jsonb, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { tenants } from '../../platform/tenancy/table.js';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * A user's account at the custody-b provider: `pending` while the registration challenge is
 * out (its temporary token sealed, context `custody-b:<tenant>:<user>`), then `registered`.
 */
export const custodyBUsers = pgTable(
  'custody_b_users',
  {
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    userId: uuid('user_id').notNull(),
    status: text('status').$type<'pending' | 'registered'>().notNull(),
    /** The provider's user id and username (the user's email at registration). */
    providerUserId: text('provider_user_id').notNull(),
    username: text('username').notNull(),
    registrationTokenSealed: text('registration_token_sealed'),
    registrationExpiresAt: ts('registration_expires_at'),
    /** The registered credential (`uuid`, `kind`, `name`): secret-free. */
    credential: jsonb('credential').$type<{ uuid: string; kind: string; name: string }>(),
    registeredAt: ts('registered_at'),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [primaryKey({ name: 'custody_b_users_pkey', columns: [t.tenantId, t.userId] })],
);

/**
 * User-action challenges handed to a user: bound to the user, and to the provider request
 * (method, path, SHA-256 of the canonical body) they were issued for. Single use, expiring.
 * The provider checks the same again; this copy gives each refusal its own answer.
 */
export const custodyBChallenges = pgTable(
  'custody_b_challenges',
  {
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    /** SHA-256 of the provider's challengeIdentifier. */
    identifierHash: text('identifier_hash').notNull(),
    userId: uuid('user_id').notNull(),
    purpose: text('purpose').notNull(),
    method: text('method').notNull(),
    path: text('path').notNull(),
    bodyHash: text('body_hash').notNull(),
    expiresAt: ts('expires_at').notNull(),
    consumedAt: ts('consumed_at'),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [
    primaryKey({ name: 'custody_b_challenges_pkey', columns: [t.tenantId, t.identifierHash] }),
    index('custody_b_challenges_tenant_user_idx').on(t.tenantId, t.userId, t.expiresAt),
  ],
);

export type CustodyBUserRow = typeof custodyBUsers.$inferSelect;
export type CustodyBChallengeRow = typeof custodyBChallenges.$inferSelect;
