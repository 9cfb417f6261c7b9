import { bigint, index, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { tenants } from '../../platform/tenancy/table.js';

/** Types of user documents (what the document is for). */
export const USER_DOCUMENT_TYPES = ['identity', 'proof_of_address', 'accreditation', 'tax', 'bank_statement', 'other'] as const;
export type UserDocumentType = (typeof USER_DOCUMENT_TYPES)[number];

/** Media types accepted, decided from the content's magic bytes. */
export const DOCUMENT_MEDIA_TYPES = ['application/pdf', 'image/png', 'image/jpeg', 'image/webp', 'image/heic'] as const;
export type DocumentMediaType = (typeof DOCUMENT_MEDIA_TYPES)[number];

export const SIGNING_CHAINS = ['evm', 'xrpl'] as const;
export type SigningChain = (typeof SIGNING_CHAINS)[number];

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** A file a user (or the tenant for them) uploaded or imported from a URL. */
export const userDocuments = pgTable(
  'user_documents',
  {
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    id: uuid('id').notNull(),
    userId: uuid('user_id').notNull(),
    type: text('type').$type<UserDocumentType>().notNull(),
    name: text('name').notNull(),
    /** The blob key in the storage port: the SHA-256 (hex) of the content. */
    blobKey: text('blob_key').notNull(),
    mediaType: text('media_type').$type<DocumentMediaType>().notNull(),
    size: bigint('size', { mode: 'number' }).notNull(),
    /** `upload` or the URL it was imported from. */
    source: text('source').notNull(),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [
    primaryKey({ name: 'user_documents_pkey', columns: [t.tenantId, t.id] }),
    index('user_documents_tenant_user_idx').on(t.tenantId, t.userId, t.id),
    index('user_documents_blob_idx').on(t.blobKey),
  ],
);

/** A document of the tenant that its users sign (e.g. a subscription agreement). */
export const tenantDocuments = pgTable(
  'tenant_documents',
  {
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    id: uuid('id').notNull(),
    title: text('title').notNull(),
    metadata: jsonb('metadata').$type<Record<string, unknown>>().notNull(),
    blobKey: text('blob_key').notNull(),
    mediaType: text('media_type').$type<DocumentMediaType>().notNull(),
    size: bigint('size', { mode: 'number' }).notNull(),
    source: text('source').notNull(),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
    deletedAt: ts('deleted_at'),
  },
  (t) => [
    primaryKey({ name: 'tenant_documents_pkey', columns: [t.tenantId, t.id] }),
    index('tenant_documents_blob_idx').on(t.blobKey),
  ],
);

/** A signing request answered by GET /tenant-documents/{id}/sign: its nonce is single use. */
export const documentSigningNonces = pgTable(
  'document_signing_nonces',
  {
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    nonce: text('nonce').notNull(),
    documentId: uuid('document_id').notNull(),
    userId: uuid('user_id').notNull(),
    chain: text('chain').$type<SigningChain>().notNull(),
    address: text('address').notNull(),
    documentSha256: text('document_sha256').notNull(),
    issuedAt: ts('issued_at').notNull(),
    expiresAt: ts('expires_at').notNull(),
    consumedAt: ts('consumed_at'),
  },
  (t) => [
    primaryKey({ name: 'document_signing_nonces_pkey', columns: [t.tenantId, t.nonce] }),
    index('document_signing_nonces_user_idx').on(t.tenantId, t.userId, t.issuedAt),
  ],
);

/** A signature of a tenant document by a user's wallet: everything needed to verify it again offline. */
export const signedDocuments = pgTable(
  'signed_documents',
  {
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    id: uuid('id').notNull(),
    documentId: uuid('document_id').notNull(),
    userId: uuid('user_id').notNull(),
    chain: text('chain').$type<SigningChain>().notNull(),
    address: text('address').notNull(),
    /** evm: `eip712` or `eip191`; xrpl: `xrpl-message`. */
    scheme: text('scheme').notNull(),
    documentSha256: text('document_sha256').notNull(),
    /** What was signed: the EIP-712 typed data, the EIP-191 text, or the XRPL message (text and hex). */
    payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
    signature: text('signature').notNull(),
    publicKey: text('public_key'),
    /** evm: `eoa`, `contract` (EIP-1271) or `counterfactual` (ERC-6492); xrpl: `master` or `regular`. */
    signerKind: text('signer_kind').notNull(),
    nonce: text('nonce').notNull(),
    signedAt: ts('signed_at').notNull(),
  },
  (t) => [
    primaryKey({ name: 'signed_documents_pkey', columns: [t.tenantId, t.id] }),
    uniqueIndex('signed_documents_signer_unique').on(t.tenantId, t.documentId, t.userId, t.chain, t.address),
    index('signed_documents_user_idx').on(t.tenantId, t.userId, t.id),
    index('signed_documents_document_idx').on(t.tenantId, t.documentId),
  ],
);

export type UserDocumentRow = typeof userDocuments.$inferSelect;
export type TenantDocumentRow = typeof tenantDocuments.$inferSelect;
export type SigningNonceRow = typeof documentSigningNonces.$inferSelect;
export type SignedDocumentRow = typeof signedDocuments.$inferSelect;
