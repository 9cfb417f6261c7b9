import { boolean, index, jsonb, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { sandboxSchema } from '../pg-schema.js';

import { leaseColumns } from '../../platform/module/in-flight.js';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * The books of the built-in custody-a sandbox: the provider's own state, not Bastion's. Rows
 * belong to a provider client (its API key; one per tenant that uses the sandbox), not to a
 * tenant. Wallet keys, the webhook signing key and travel-rule answers are sealed by the
 * SecretBox; client keys are stored as public keys only (plus the sealed private half the
 * sandbox's "dashboard" hands to its own tenant in-process).
 */
export const custodyASandboxClients = sandboxSchema.table('custody_a_sandbox_clients', {
  apiKey: text('api_key').primaryKey(),
  /** Who signed up (the Bastion tenant), unique: one client per tenant. */
  label: text('label').notNull(),
  publicKeyPem: text('public_key_pem').notNull(),
  privateKeySealed: text('private_key_sealed').notNull(),
  webhookUrl: text('webhook_url'),
  createdAt: ts('created_at').notNull(),
}, (t) => [uniqueIndex('custody_a_sandbox_clients_label_unique').on(t.label)]);

/** The P-256 key webhooks are signed with (one row, id `webhook`). */
export const custodyASandboxKeys = sandboxSchema.table('custody_a_sandbox_keys', {
  id: text('id').primaryKey(),
  publicKeyPem: text('public_key_pem').notNull(),
  privateKeySealed: text('private_key_sealed').notNull(),
  createdAt: ts('created_at').notNull(),
});

export const custodyASandboxVaults = sandboxSchema.table(
  'custody_a_sandbox_vaults',
  {
    id: text('id').primaryKey(),
    apiKey: text('api_key').notNull(),
    name: text('name').notNull(),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [index('custody_a_sandbox_vaults_key_idx').on(t.apiKey)],
);

export const custodyASandboxWallets = sandboxSchema.table(
  'custody_a_sandbox_wallets',
  {
    id: text('id').primaryKey(),
    apiKey: text('api_key').notNull(),
    vaultId: text('vault_id').notNull(),
    blockchain: text('blockchain').$type<'ETHEREUM' | 'XRPL'>().notNull(),
    network: text('network').notNull(),
    address: text('address').notNull(),
    name: text('name').notNull(),
    description: text('description'),
    /** The wallet's private key (EVM hex) or seed (XRPL), sealed. */
    keySealed: text('key_sealed').notNull(),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [index('custody_a_sandbox_wallets_vault_idx').on(t.apiKey, t.vaultId)],
);

export const custodyASandboxTransactions = sandboxSchema.table(
  'custody_a_sandbox_transactions',
  {
    id: text('id').primaryKey(),
    apiKey: text('api_key').notNull(),
    vaultId: text('vault_id').notNull(),
    walletId: text('wallet_id').notNull(),
    externalId: text('external_id').notNull(),
    type: text('type').$type<'TRANSFER' | 'ACCOUNT_SET'>().notNull(),
    status: text('status').notNull(),
    /** The request as received (secret-free), for the executor and a repeat's comparison. */
    request: jsonb('request').$type<Record<string, unknown>>().notNull(),
    hash: text('hash'),
    /** XRPL: the LastLedgerSequence of the signed transaction. */
    lastLedgerSequence: text('last_ledger_sequence'),
    /**
     * The signed transaction (EVM raw hex, XRPL blob), stored with its hash before it is sent:
     * a resumed send sends this again (same hash), never a new signature.
     */
    signedTx: text('signed_tx'),
    failureReason: text('failure_reason'),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
    ...leaseColumns(),
  },
  (t) => [uniqueIndex('custody_a_sandbox_transactions_external_unique').on(t.apiKey, t.externalId)],
);

export const custodyASandboxTransfers = sandboxSchema.table(
  'custody_a_sandbox_transfers',
  {
    id: text('id').primaryKey(),
    apiKey: text('api_key').notNull(),
    idempotentId: text('idempotent_id').notNull(),
    sourceWalletId: text('source_wallet_id').notNull(),
    destinationAddress: text('destination_address').notNull(),
    assetType: text('asset_type').notNull(),
    amount: text('amount').notNull(),
    deductFee: boolean('deduct_fee').notNull(),
    memo: text('memo'),
    /** The travel-rule questionnaire, sealed. */
    questionnaireSealed: text('questionnaire_sealed'),
    status: text('status').notNull(),
    hash: text('hash'),
    /** The signed transaction, stored with its hash before it is sent (see transactions). */
    signedTx: text('signed_tx'),
    failureReason: text('failure_reason'),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
    ...leaseColumns(),
  },
  (t) => [uniqueIndex('custody_a_sandbox_transfers_idempotent_unique').on(t.apiKey, t.idempotentId)],
);

export type SandboxClientRow = typeof custodyASandboxClients.$inferSelect;
export type SandboxWalletRow = typeof custodyASandboxWallets.$inferSelect;
export type SandboxTransactionRow = typeof custodyASandboxTransactions.$inferSelect;
export type SandboxTransferRow = typeof custodyASandboxTransfers.$inferSelect;
