import { boolean, index, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { leaseColumns } from '../../platform/module/in-flight.js';
import { tenants } from '../../platform/tenancy/table.js';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });
const tenantId = () =>
  uuid('tenant_id')
    .notNull()
    .references(() => tenants.id, { onDelete: 'cascade' });

/** A custodial vault of a user at a custody provider (custody-a); its wallets are in the wallet registry. */
export const custodyVaults = pgTable(
  'custody_vaults',
  {
    tenantId: tenantId(),
    /** The `vaultId` of the API. */
    id: uuid('id').notNull(),
    userId: uuid('user_id').notNull(),
    provider: text('provider').notNull(),
    providerVaultId: text('provider_vault_id').notNull(),
    name: text('name').notNull(),
    /** Registry wallet ids, in creation order. */
    walletIds: jsonb('wallet_ids').$type<string[]>().notNull(),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [primaryKey({ name: 'custody_vaults_pkey', columns: [t.tenantId, t.id] }), index('custody_vaults_tenant_user_idx').on(t.tenantId, t.userId)],
);

/** A custody-a transaction (transfer or XRPL AccountSet) of a vault wallet, as last heard from the provider. */
export const custodyTransactions = pgTable(
  'custody_transactions',
  {
    tenantId: tenantId(),
    id: uuid('id').notNull(),
    vaultId: uuid('vault_id').notNull(),
    walletId: uuid('wallet_id').notNull(),
    userId: uuid('user_id').notNull(),
    type: text('type').$type<'TRANSFER' | 'ACCOUNT_SET'>().notNull(),
    providerTransactionId: text('provider_transaction_id').notNull(),
    externalId: text('external_id').notNull(),
    status: text('status').notNull(),
    symbol: text('symbol'),
    qty: text('qty'),
    destinationAddress: text('destination_address'),
    contract: text('contract'),
    hash: text('hash'),
    failureReason: text('failure_reason'),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
    /** Followed at the provider until final (platform/module/in-flight.ts). */
    ...leaseColumns(),
  },
  (t) => [
    primaryKey({ name: 'custody_transactions_pkey', columns: [t.tenantId, t.id] }),
    uniqueIndex('custody_transactions_provider_unique').on(t.tenantId, t.providerTransactionId),
  ],
);

/** A transfer of POST /non-custodial-evm/transfers; the travel-rule questionnaire sealed. */
export const custodyTransfers = pgTable(
  'custody_transfers',
  {
    tenantId: tenantId(),
    id: uuid('id').notNull(),
    userId: uuid('user_id').notNull(),
    provider: text('provider').notNull(),
    idempotentId: text('idempotent_id').notNull(),
    sourceWalletId: uuid('source_wallet_id').notNull(),
    sourceType: text('source_type').notNull(),
    destinationId: text('destination_id').notNull(),
    destinationType: text('destination_type').notNull(),
    assetType: text('asset_type').notNull(),
    amount: text('amount').notNull(),
    deductFeeFromAmountIfSameType: boolean('deduct_fee').notNull(),
    transferMemo: text('transfer_memo'),
    /** The transferAmlQuestionnaire, sealed by the SecretBox (context `custody-transfer:<tenant>:<id>`). */
    questionnaireSealed: text('questionnaire_sealed'),
    providerTransferId: text('provider_transfer_id').notNull(),
    status: text('status').notNull(),
    hash: text('hash'),
    failureReason: text('failure_reason'),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
    /** Followed at the provider until final (platform/module/in-flight.ts). */
    ...leaseColumns(),
  },
  (t) => [
    primaryKey({ name: 'custody_transfers_pkey', columns: [t.tenantId, t.id] }),
    uniqueIndex('custody_transfers_provider_unique').on(t.tenantId, t.provider, t.providerTransferId),
    index('custody_transfers_tenant_user_idx').on(t.tenantId, t.userId, t.id),
  ],
);

export type CustodyVaultRow = typeof custodyVaults.$inferSelect;
export type CustodyTransactionRow = typeof custodyTransactions.$inferSelect;
export type CustodyTransferRow = typeof custodyTransfers.$inferSelect;
