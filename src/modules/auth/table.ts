import { bigint, boolean, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { tenants } from '../../platform/tenancy/table.js';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * Ed25519 keys that sign access tokens. Service-wide (tokens carry the tenant in `tid`), so
 * siblings verify every tenant's tokens with one JWKS. The private half is sealed with the
 * SecretBox; `retiredAt` stops signing, publication continues until retired + token lifetime.
 */
export const signingKeys = pgTable('signing_keys', {
  kid: text('kid').primaryKey(),
  publicJwk: jsonb('public_jwk').$type<Record<string, string>>().notNull(),
  privateKeySealed: text('private_key_sealed').notNull(),
  createdAt: ts('created_at').notNull().defaultNow(),
  retiredAt: ts('retired_at'),
});

/**
 * A user's password (argon2id) and second factor. Absent for users created without a password.
 * The TOTP secret is sealed (SecretBox, context `totp:<tenant>:<user>`); a setup in progress
 * keeps its secret in `totpPendingSealed` until enable confirms a code; `totpLastStep` is the
 * last accepted time step, never accepted again.
 */
export const credentials = pgTable(
  'credentials',
  {
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    userId: uuid('user_id').notNull(),
    passwordHash: text('password_hash'),
    passwordChangedAt: ts('password_changed_at'),
    twoFactorMethod: text('two_factor_method').$type<TwoFactorMethod>(),
    twoFactorEnabledAt: ts('two_factor_enabled_at'),
    totpSecretSealed: text('totp_secret_sealed'),
    totpPendingSealed: text('totp_pending_sealed'),
    totpPendingAt: ts('totp_pending_at'),
    totpLastStep: bigint('totp_last_step', { mode: 'number' }),
  },
  (t) => [primaryKey({ name: 'credentials_pkey', columns: [t.tenantId, t.userId] })],
);

export type TwoFactorMethod = 'email' | 'totp';

/** Single-use recovery codes of TOTP 2FA: only the SHA-256 of each; replaced as a set. */
export const recoveryCodes = pgTable(
  'recovery_codes',
  {
    tenantId: uuid('tenant_id').notNull(),
    id: uuid('id').notNull(),
    userId: uuid('user_id').notNull(),
    codeHash: text('code_hash').notNull(),
    createdAt: ts('created_at').notNull(),
    usedAt: ts('used_at'),
  },
  (t) => [
    primaryKey({ name: 'recovery_codes_pkey', columns: [t.tenantId, t.id] }),
    uniqueIndex('recovery_codes_hash_unique').on(t.codeHash),
    index('recovery_codes_user_idx').on(t.tenantId, t.userId),
  ],
);

/** A login session: the family of its rotating refresh tokens. */
export const sessions = pgTable(
  'sessions',
  {
    tenantId: uuid('tenant_id').notNull(),
    id: uuid('id').notNull(),
    userId: uuid('user_id').notNull(),
    createdAt: ts('created_at').notNull(),
    revokedAt: ts('revoked_at'),
    revokeReason: text('revoke_reason'),
    ip: text('ip'),
    userAgent: text('user_agent'),
    /** Who started the session when not the user's own login: `api-key:<keyId>` (the token's `act.sub`). */
    actor: text('actor'),
  },
  (t) => [
    primaryKey({ name: 'sessions_pkey', columns: [t.tenantId, t.id] }),
    index('sessions_user_idx').on(t.tenantId, t.userId),
  ],
);

/**
 * Refresh tokens: only the SHA-256 of the 256-bit token is kept. A used token keeps its
 * successor's pair sealed for the retry window, so a client retrying the same refresh gets
 * the same answer; after the window a reuse revokes the session.
 */
export const refreshTokens = pgTable(
  'refresh_tokens',
  {
    tenantId: uuid('tenant_id').notNull(),
    id: uuid('id').notNull(),
    sessionId: uuid('session_id').notNull(),
    tokenHash: text('token_hash').notNull(),
    createdAt: ts('created_at').notNull(),
    expiresAt: ts('expires_at').notNull(),
    usedAt: ts('used_at'),
    successorSealed: text('successor_sealed'),
  },
  (t) => [
    primaryKey({ name: 'refresh_tokens_pkey', columns: [t.tenantId, t.id] }),
    uniqueIndex('refresh_tokens_hash_unique').on(t.tokenHash),
    index('refresh_tokens_session_idx').on(t.tenantId, t.sessionId),
  ],
);

export type OneTimePurpose =
  | 'email_verify_token'
  | 'email_verify_code'
  | 'email_verify_link'
  | 'password_reset_token'
  | 'password_reset_code'
  | 'two_factor_setup_code'
  | 'two_factor_login_code'
  | 'two_factor_challenge';

/**
 * Single-use codes and tokens (verification, reset, 2FA): stored hashed, with an expiry,
 * a consumed time and a count of wrong tries.
 */
export const oneTimeSecrets = pgTable(
  'one_time_secrets',
  {
    tenantId: uuid('tenant_id').notNull(),
    id: uuid('id').notNull(),
    userId: uuid('user_id').notNull(),
    purpose: text('purpose').$type<OneTimePurpose>().notNull(),
    secretHash: text('secret_hash').notNull(),
    createdAt: ts('created_at').notNull(),
    expiresAt: ts('expires_at').notNull(),
    consumedAt: ts('consumed_at'),
    voided: boolean('voided').notNull().default(false),
    data: jsonb('data').$type<Record<string, unknown>>(),
  },
  (t) => [
    primaryKey({ name: 'one_time_secrets_pkey', columns: [t.tenantId, t.id] }),
    uniqueIndex('one_time_secrets_hash_unique').on(t.secretHash),
    index('one_time_secrets_user_idx').on(t.tenantId, t.userId, t.purpose),
  ],
);

/** Wrong tries per account and purpose; never reset by asking for a new code. */
export const attemptCounters = pgTable(
  'attempt_counters',
  {
    tenantId: uuid('tenant_id').notNull(),
    userId: uuid('user_id').notNull(),
    purpose: text('purpose').notNull(),
    failures: integer('failures').notNull().default(0),
    windowStartedAt: ts('window_started_at').notNull(),
    lockedUntil: ts('locked_until'),
  },
  (t) => [primaryKey({ name: 'attempt_counters_pkey', columns: [t.tenantId, t.userId, t.purpose] })],
);

export type SigningKeyRow = typeof signingKeys.$inferSelect;
export type SessionRow = typeof sessions.$inferSelect;
export type RefreshTokenRow = typeof refreshTokens.$inferSelect;
export type OneTimeSecretRow = typeof oneTimeSecrets.$inferSelect;
