import { index, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { tenants } from '../../../platform/tenancy/table.js';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * One authorization request in flight. The browser carries only the random `state`; its
 * SHA-256 finds this row, which holds the tenant, the client URL to return to, the nonce and
 * the PKCE verifier (sealed). Consumed once; useless after `expiresAt`.
 */
export const idpLoginStates = pgTable(
  'idp_login_states',
  {
    id: uuid('id').primaryKey(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    stateHash: text('state_hash').notNull(),
    issuer: text('issuer').notNull(),
    redirectUrl: text('redirect_url').notNull(),
    nonce: text('nonce').notNull(),
    codeVerifierSealed: text('code_verifier_sealed').notNull(),
    createdAt: ts('created_at').notNull(),
    expiresAt: ts('expires_at').notNull(),
    consumedAt: ts('consumed_at'),
  },
  (t) => [uniqueIndex('idp_login_states_hash_unique').on(t.stateHash), index('idp_login_states_tenant_expires_idx').on(t.tenantId, t.expiresAt)],
);

/** A user's account at an external provider: (issuer, subject) names it for good. */
export const userIdentities = pgTable(
  'user_identities',
  {
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    issuer: text('issuer').notNull(),
    subject: text('subject').notNull(),
    userId: uuid('user_id').notNull(),
    /** The email the provider asserted when the link was made. */
    email: text('email'),
    createdAt: ts('created_at').notNull(),
    lastLoginAt: ts('last_login_at').notNull(),
  },
  (t) => [
    primaryKey({ name: 'user_identities_pkey', columns: [t.tenantId, t.issuer, t.subject] }),
    index('user_identities_user_idx').on(t.tenantId, t.userId),
  ],
);

export type IdpLoginStateRow = typeof idpLoginStates.$inferSelect;
export type UserIdentityRow = typeof userIdentities.$inferSelect;
