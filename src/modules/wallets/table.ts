import { index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { tenants } from '../../platform/tenancy/table.js';

/**
 * Every kind of wallet the service knows. Later issues add kinds here (the registry and its
 * table do not change): EVM EOAs registered by SIWE, custodial EVM vaults, XRPL secure
 * accounts, non-custodial XRPL wallets (investor, hot/signer, cold), custody-provider wallets.
 */
export const WALLET_KINDS = ['evm-eoa', 'evm-vault', 'xrpl-secure', 'xrpl-investor', 'xrpl-signer', 'xrpl-cold', 'custody-b', 'custody-a'] as const;
export type WalletKind = (typeof WALLET_KINDS)[number];
export const WALLET_CHAINS = ['evm', 'xrpl'] as const;
export type WalletChain = (typeof WALLET_CHAINS)[number];

/** The wallet registry: one row per address per tenant, chain and network, owned by one user. */
export const wallets = pgTable(
  'wallets',
  {
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    /** The `walletId` of the API. */
    id: uuid('id').notNull(),
    userId: uuid('user_id').notNull(),
    kind: text('kind').$type<WalletKind>().notNull(),
    chain: text('chain').$type<WalletChain>().notNull(),
    /** EVM: the chain id in decimal; XRPL: the network id (e.g. `local`, `testnet`). */
    network: text('network').notNull(),
    /** As answered: EIP-55 checksummed for EVM, the classic address for XRPL. */
    address: text('address').notNull(),
    /** The form compared: lower-cased for EVM (case carries only the checksum), as is for XRPL. */
    addressKey: text('address_key').notNull(),
    vaultId: text('vault_id'),
    /** Custody provider holding the key, and its reference for the wallet. */
    provider: text('provider'),
    providerRef: text('provider_ref'),
    /** A private key the service holds, sealed by the SecretBox (context `wallet:<tenant>:<id>`); never answered. */
    sealedKey: text('sealed_key'),
    /** Kind-specific, secret-free facts (e.g. how an EOA proved control). */
    details: jsonb('details').$type<Record<string, unknown>>().notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [
    primaryKey({ name: 'wallets_pkey', columns: [t.tenantId, t.id] }),
    uniqueIndex('wallets_tenant_chain_address_unique').on(t.tenantId, t.chain, t.network, t.addressKey),
    index('wallets_tenant_user_idx').on(t.tenantId, t.userId, t.kind, t.id),
    index('wallets_tenant_vault_idx').on(t.tenantId, t.vaultId),
  ],
);

/**
 * Sign-In with Ethereum nonces: stored as SHA-256 hashes, bound to tenant and user and to the
 * domain, URI and chain they were issued for; single use (consumed_at), 10 minutes.
 */
export const evmSiweNonces = pgTable(
  'evm_siwe_nonces',
  {
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    nonceHash: text('nonce_hash').notNull(),
    userId: uuid('user_id').notNull(),
    domain: text('domain').notNull(),
    uri: text('uri').notNull(),
    chainId: integer('chain_id').notNull(),
    issuedAt: timestamp('issued_at', { withTimezone: true, mode: 'date' }).notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    consumedAt: timestamp('consumed_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    primaryKey({ name: 'evm_siwe_nonces_pkey', columns: [t.tenantId, t.nonceHash] }),
    index('evm_siwe_nonces_tenant_user_idx').on(t.tenantId, t.userId, t.expiresAt),
  ],
);

export type WalletRow = typeof wallets.$inferSelect;
export type SiweNonceRow = typeof evmSiweNonces.$inferSelect;

/**
 * XRPL challenges: a nonce (stored as its SHA-256) for proving control of an XRPL key, bound to
 * the tenant and user and, when issued for one, to an address. Single use, 10 minutes.
 */
export const xrplChallenges = pgTable(
  'xrpl_challenges',
  {
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    nonceHash: text('nonce_hash').notNull(),
    userId: uuid('user_id').notNull(),
    /** The address the challenge was issued for (POST /wallet/challenge/{address}); null: any. */
    address: text('address'),
    /** The exact text to sign (UTF-8). */
    message: text('message').notNull(),
    issuedAt: timestamp('issued_at', { withTimezone: true, mode: 'date' }).notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    consumedAt: timestamp('consumed_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    primaryKey({ name: 'xrpl_challenges_pkey', columns: [t.tenantId, t.nonceHash] }),
    index('xrpl_challenges_tenant_user_idx').on(t.tenantId, t.userId, t.expiresAt),
  ],
);

export const XRPL_SUBMISSION_STATUSES = ['submitted', 'validated', 'failed', 'expired'] as const;
export type XrplSubmissionStatus = (typeof XRPL_SUBMISSION_STATUSES)[number];

/**
 * Every transaction Bastion sends to an XRPL ledger, written before it is sent and followed
 * until it is in a validated ledger (`validated`, with its final result, which may be a tec
 * code), refused for good (`failed`: tem/tef/tel, or a blob the server refused), or past its
 * LastLedgerSequence without being validated (`expired`: it can never apply).
 */
export const xrplSubmissions = pgTable(
  'xrpl_submissions',
  {
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    id: uuid('id').notNull(),
    userId: uuid('user_id'),
    network: text('network').notNull(),
    hash: text('hash').notNull(),
    account: text('account').notNull(),
    transactionType: text('transaction_type').notNull(),
    sequence: integer('sequence').notNull(),
    lastLedgerSequence: integer('last_ledger_sequence').notNull(),
    txBlob: text('tx_blob').notNull(),
    status: text('status').$type<XrplSubmissionStatus>().notNull(),
    /** The preliminary engine result of the last submit (not final). */
    engineResult: text('engine_result'),
    /** meta.TransactionResult once validated. */
    result: text('result'),
    ledgerIndex: integer('ledger_index'),
    attempts: integer('attempts').notNull(),
    /** Until when a request or a sweep follows it (platform/module/in-flight.ts). */
    leaseUntil: timestamp('lease_until', { withTimezone: true, mode: 'date' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [
    primaryKey({ name: 'xrpl_submissions_pkey', columns: [t.tenantId, t.id] }),
    uniqueIndex('xrpl_submissions_tenant_hash_unique').on(t.tenantId, t.network, t.hash),
    // The account's in-flight sequences are looked up across tenants (one ledger account, one sequence).
    index('xrpl_submissions_account_idx').on(t.network, t.account, t.status, t.sequence),
    index('xrpl_submissions_status_idx').on(t.status),
  ],
);

export type XrplChallengeRow = typeof xrplChallenges.$inferSelect;
export type XrplSubmissionRow = typeof xrplSubmissions.$inferSelect;
