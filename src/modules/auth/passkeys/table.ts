import { bigint, boolean, index, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { tenants } from '../../../platform/tenancy/table.js';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * A user's passkeys (WebAuthn credentials, discoverable). The credential id is unique per
 * tenant (a login finds the passkey by it); the public key is the COSE key, base64url. The
 * signature counter and the backup flags are kept as the authenticator last reported them.
 */
export const passkeys = pgTable(
  'passkeys',
  {
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    id: uuid('id').notNull(),
    userId: uuid('user_id').notNull(),
    name: text('name').notNull(),
    credentialId: text('credential_id').notNull(),
    publicKey: text('public_key').notNull(),
    counter: bigint('counter', { mode: 'number' }).notNull().default(0),
    transports: jsonb('transports').$type<string[]>().notNull().default([]),
    deviceType: text('device_type').$type<'singleDevice' | 'multiDevice'>().notNull(),
    backedUp: boolean('backed_up').notNull(),
    aaguid: text('aaguid'),
    rpId: text('rp_id').notNull(),
    createdAt: ts('created_at').notNull(),
    lastUsedAt: ts('last_used_at'),
  },
  (t) => [
    primaryKey({ name: 'passkeys_pkey', columns: [t.tenantId, t.id] }),
    uniqueIndex('passkeys_credential_unique').on(t.tenantId, t.credentialId),
    index('passkeys_user_idx').on(t.tenantId, t.userId),
  ],
);

export type PasskeyChallengePurpose = 'registration' | 'authentication';

/**
 * WebAuthn challenges: single use, short-lived, bound to their tenant (and, for a registration,
 * to the user who asked). Kept by the SHA-256 of the challenge; the challenge itself is needed to
 * verify and is not a secret (the browser signs it).
 */
export const passkeyChallenges = pgTable(
  'passkey_challenges',
  {
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    id: uuid('id').notNull(),
    purpose: text('purpose').$type<PasskeyChallengePurpose>().notNull(),
    challengeHash: text('challenge_hash').notNull(),
    challenge: text('challenge').notNull(),
    userId: uuid('user_id'),
    /** The name the registration will give the passkey. */
    name: text('name'),
    rpId: text('rp_id').notNull(),
    origin: text('origin').notNull(),
    createdAt: ts('created_at').notNull(),
    expiresAt: ts('expires_at').notNull(),
    consumedAt: ts('consumed_at'),
  },
  (t) => [
    primaryKey({ name: 'passkey_challenges_pkey', columns: [t.tenantId, t.id] }),
    uniqueIndex('passkey_challenges_hash_unique').on(t.challengeHash),
    index('passkey_challenges_expiry_idx').on(t.tenantId, t.expiresAt),
  ],
);

export type PasskeyRow = typeof passkeys.$inferSelect;
export type PasskeyChallengeRow = typeof passkeyChallenges.$inferSelect;
