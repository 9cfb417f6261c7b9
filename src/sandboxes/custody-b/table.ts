import { index, integer, jsonb, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { sandboxSchema } from '../pg-schema.js';

import { leaseColumns } from '../../platform/module/in-flight.js';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * The built-in custody-b provider's own books (not Bastion's): rows belong to a provider
 * organisation (`org_id`, one per tenant that uses the sandbox). Tokens are stored as SHA-256
 * hashes; the service account's key and the wallets' secp256k1 keys are sealed by the SecretBox.
 */
export const custodyBSandboxOrgs = sandboxSchema.table('custody_b_sandbox_orgs', {
  orgId: text('org_id').primaryKey(),
  /** The tenant the organisation was opened for (the sandbox hands its credentials to it). */
  tenantId: text('tenant_id').notNull().unique('custody_b_sandbox_orgs_tenant_unique'),
  appId: text('app_id').notNull(),
  /** The service account's token and key credential, sealed (context `custody-b-sandbox:<org>`). */
  sealedServiceAccount: text('sealed_service_account').notNull(),
  serviceUserId: text('service_user_id').notNull(),
  createdAt: ts('created_at').notNull(),
});

/** Users of an organisation: the service account and delegated end users. */
export const custodyBSandboxUsers = sandboxSchema.table(
  'custody_b_sandbox_users',
  {
    id: text('id').primaryKey(),
    orgId: text('org_id').notNull(),
    kind: text('kind').$type<'ServiceAccount' | 'EndUser'>().notNull(),
    username: text('username').notNull(),
    externalId: text('external_id'),
    /** `pending` until the registration completes with a first credential. */
    status: text('status').$type<'pending' | 'registered'>().notNull(),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [uniqueIndex('custody_b_sandbox_users_org_username_unique').on(t.orgId, t.username)],
);

/** Credentials: key credentials (SPKI PEM) and WebAuthn passkeys (COSE key, counter). */
export const custodyBSandboxCredentials = sandboxSchema.table(
  'custody_b_sandbox_credentials',
  {
    orgId: text('org_id').notNull(),
    credId: text('cred_id').notNull(),
    uuid: text('uuid').notNull(),
    userId: text('user_id').notNull(),
    kind: text('kind').$type<'Key' | 'Fido2'>().notNull(),
    name: text('name').notNull(),
    /** Key: SPKI PEM; Fido2: the COSE public key, base64url. */
    publicKey: text('public_key').notNull(),
    counter: integer('counter').notNull(),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [primaryKey({ name: 'custody_b_sandbox_credentials_pkey', columns: [t.orgId, t.credId] }), index('custody_b_sandbox_credentials_user_idx').on(t.userId)],
);

/** Bearer tokens: service, end user (delegated login), registration (temporary). */
export const custodyBSandboxTokens = sandboxSchema.table('custody_b_sandbox_tokens', {
  tokenHash: text('token_hash').primaryKey(),
  orgId: text('org_id').notNull(),
  userId: text('user_id').notNull(),
  kind: text('kind').$type<'service' | 'user' | 'registration'>().notNull(),
  expiresAt: ts('expires_at'),
  createdAt: ts('created_at').notNull(),
});

/**
 * Challenges: registration (signed by the new credential) and user actions (bound to one
 * method, path and payload). Single use (`consumed_at`), expiring.
 */
export const custodyBSandboxChallenges = sandboxSchema.table('custody_b_sandbox_challenges', {
  id: text('id').primaryKey(),
  orgId: text('org_id').notNull(),
  userId: text('user_id').notNull(),
  kind: text('kind').$type<'registration' | 'action'>().notNull(),
  challenge: text('challenge').notNull(),
  method: text('method'),
  path: text('path'),
  payload: text('payload'),
  expiresAt: ts('expires_at').notNull(),
  consumedAt: ts('consumed_at'),
  createdAt: ts('created_at').notNull(),
});

/** One-time user-action tokens, bound to the challenge's request. */
export const custodyBSandboxUserActions = sandboxSchema.table('custody_b_sandbox_user_actions', {
  tokenHash: text('token_hash').primaryKey(),
  orgId: text('org_id').notNull(),
  userId: text('user_id').notNull(),
  method: text('method').notNull(),
  path: text('path').notNull(),
  payload: text('payload').notNull(),
  expiresAt: ts('expires_at').notNull(),
  consumedAt: ts('consumed_at'),
});

/** Request nonces seen (replays of a request are refused). */
export const custodyBSandboxNonces = sandboxSchema.table('custody_b_sandbox_nonces', {
  nonce: text('nonce').primaryKey(),
  seenAt: ts('seen_at').notNull(),
});

/** Wallets: a secp256k1 key per wallet, sealed (context `custody-b-sandbox-wallet:<id>`). */
export const custodyBSandboxWallets = sandboxSchema.table(
  'custody_b_sandbox_wallets',
  {
    id: text('id').primaryKey(),
    orgId: text('org_id').notNull(),
    userId: text('user_id').notNull(),
    network: text('network').notNull(),
    name: text('name'),
    address: text('address').notNull(),
    publicKey: text('public_key').notNull(),
    sealedKey: text('sealed_key').notNull(),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [index('custody_b_sandbox_wallets_org_user_idx').on(t.orgId, t.userId)],
);

/** Signatures and broadcasts requested of a wallet. */
export const custodyBSandboxSignatures = sandboxSchema.table('custody_b_sandbox_signatures', {
  id: text('id').primaryKey(),
  orgId: text('org_id').notNull(),
  walletId: text('wallet_id').notNull(),
  kind: text('kind').notNull(),
  requestBody: jsonb('request_body').$type<Record<string, unknown>>().notNull(),
  signature: jsonb('signature').$type<Record<string, unknown>>(),
  signedData: text('signed_data'),
  txHash: text('tx_hash'),
  /** Signed, Broadcasting (signed transaction stored, send under way), Broadcasted, Failed. */
  status: text('status').notNull(),
  failureReason: text('failure_reason'),
  createdAt: ts('created_at').notNull(),
  ...leaseColumns(),
});

export type CustodyBSandboxUserRow = typeof custodyBSandboxUsers.$inferSelect;
export type CustodyBSandboxWalletRow = typeof custodyBSandboxWallets.$inferSelect;
export type CustodyBSandboxSignatureRow = typeof custodyBSandboxSignatures.$inferSelect;
