import { index, integer, jsonb, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { sandboxSchema } from '../pg-schema.js';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * The state of the built-in bank-link sandbox: the provider's own books, not Bastion's. Rows
 * belong to a provider client (`client_id`, one per tenant that uses the sandbox), not to a
 * tenant: the provider knows no tenants. Secrets and tokens are stored as SHA-256 hashes;
 * the webhook signing key is sealed by the SecretBox.
 */
export const bankLinkSandboxClients = sandboxSchema.table('bank_link_sandbox_clients', {
  clientId: text('client_id').primaryKey(),
  secretHash: text('secret_hash').notNull(),
  /** The account-level webhook (originator changes), as a dashboard setting would hold it. */
  webhookUrl: text('webhook_url'),
  createdAt: ts('created_at').notNull(),
});

export interface SandboxAccount {
  account_id: string;
  name: string;
  official_name: string | null;
  mask: string;
  type: string;
  subtype: string;
}

/** A Link session: created by /link/token/create, walked through by the Link page. */
export const bankLinkSandboxLinkTokens = sandboxSchema.table(
  'bank_link_sandbox_link_tokens',
  {
    tokenHash: text('token_hash').primaryKey(),
    clientId: text('client_id').notNull(),
    clientName: text('client_name').notNull(),
    clientUserId: text('client_user_id').notNull(),
    products: jsonb('products').$type<string[]>().notNull(),
    webhook: text('webhook'),
    completionRedirectUri: text('completion_redirect_uri'),
    /** Set once the person signed in at a test bank on the Link page. */
    institutionId: text('institution_id'),
    signedInAt: ts('signed_in_at'),
    usedAt: ts('used_at'),
    createdAt: ts('created_at').notNull(),
    expiresAt: ts('expires_at').notNull(),
  },
  (t) => [index('bank_link_sandbox_link_tokens_client_idx').on(t.clientId)],
);

/** An Item: a login at a test bank with the accounts the person chose. */
export const bankLinkSandboxItems = sandboxSchema.table(
  'bank_link_sandbox_items',
  {
    itemId: text('item_id').primaryKey(),
    clientId: text('client_id').notNull(),
    /** SHA-256 of the access token; null until the public token is exchanged. */
    accessTokenHash: text('access_token_hash'),
    institutionId: text('institution_id').notNull(),
    institutionName: text('institution_name').notNull(),
    webhook: text('webhook'),
    accounts: jsonb('accounts').$type<SandboxAccount[]>().notNull(),
    errorCode: text('error_code'),
    createdAt: ts('created_at').notNull(),
    removedAt: ts('removed_at'),
  },
  (t) => [
    uniqueIndex('bank_link_sandbox_items_access_idx').on(t.accessTokenHash),
    index('bank_link_sandbox_items_client_idx').on(t.clientId),
  ],
);

/** Public tokens: single use, 30 minutes. */
export const bankLinkSandboxPublicTokens = sandboxSchema.table('bank_link_sandbox_public_tokens', {
  tokenHash: text('token_hash').primaryKey(),
  clientId: text('client_id').notNull(),
  itemId: text('item_id').notNull(),
  createdAt: ts('created_at').notNull(),
  expiresAt: ts('expires_at').notNull(),
  usedAt: ts('used_at'),
});

/** Originators (end customers of a platform client) and their diligence. */
export const bankLinkSandboxOriginators = sandboxSchema.table(
  'bank_link_sandbox_originators',
  {
    originatorClientId: text('originator_client_id').primaryKey(),
    clientId: text('client_id').notNull(),
    /** Creation order per client, for /transfer/originator/list paging. */
    seq: integer('seq').notNull(),
    companyName: text('company_name').notNull(),
    diligenceStatus: text('diligence_status').notNull(),
    /** The answers of the KYB questionnaire, once submitted. */
    questionnaire: jsonb('questionnaire').$type<Record<string, string>>(),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [uniqueIndex('bank_link_sandbox_originators_client_seq_idx').on(t.clientId, t.seq)],
);

/** Hosted KYB questionnaire sessions (/transfer/questionnaire/create). */
export const bankLinkSandboxQuestionnaires = sandboxSchema.table('bank_link_sandbox_questionnaires', {
  tokenHash: text('token_hash').primaryKey(),
  clientId: text('client_id').notNull(),
  originatorClientId: text('originator_client_id').notNull(),
  redirectUri: text('redirect_uri').notNull(),
  createdAt: ts('created_at').notNull(),
  expiresAt: ts('expires_at').notNull(),
});

/** The ES256 keys webhooks are signed with; the private half sealed. */
export const bankLinkSandboxWebhookKeys = sandboxSchema.table('bank_link_sandbox_webhook_keys', {
  kid: text('kid').primaryKey(),
  publicJwk: jsonb('public_jwk').$type<Record<string, string>>().notNull(),
  privateJwkSealed: text('private_jwk_sealed').notNull(),
  createdAt: ts('created_at').notNull(),
  expiredAt: ts('expired_at'),
});

export type SandboxLinkTokenRow = typeof bankLinkSandboxLinkTokens.$inferSelect;
export type SandboxItemRow = typeof bankLinkSandboxItems.$inferSelect;
export type SandboxOriginatorRow = typeof bankLinkSandboxOriginators.$inferSelect;
