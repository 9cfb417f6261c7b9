import { and, count, desc, eq, inArray, isNull, lt, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '../../platform/db/client.js';
import type { PageParams } from '../../platform/http/pagination.js';
import {
  documentSigningNonces,
  signedDocuments,
  tenantDocuments,
  userDocuments,
  type SignedDocumentRow,
  type SigningNonceRow,
  type TenantDocumentRow,
  type UserDocumentRow,
  type UserDocumentType,
  type SigningChain,
} from './table.js';

export function createDocumentsRepo(db: DbOrTx) {
  return {
    // ---- user documents
    /** The insert of a new user document, built but not run (for writeTogether with its audit entry and event). */
    insertUserDocumentStatement(row: UserDocumentRow, tx: DbOrTx = db) {
      return tx.insert(userDocuments).values(row);
    },
    async findUserDocument(tenantId: string, id: string, tx: DbOrTx = db): Promise<UserDocumentRow | undefined> {
      const [row] = await tx.select().from(userDocuments).where(and(eq(userDocuments.tenantId, tenantId), eq(userDocuments.id, id))).limit(1);
      return row;
    },
    /** Of `ids`, those that are documents of this user (the tenant's, never another's). */
    async userDocumentIdsOf(tenantId: string, userId: string, ids: string[], tx: DbOrTx = db): Promise<string[]> {
      if (ids.length === 0) return [];
      const rows = await tx
        .select({ id: userDocuments.id })
        .from(userDocuments)
        .where(and(eq(userDocuments.tenantId, tenantId), eq(userDocuments.userId, userId), inArray(userDocuments.id, ids)));
      return rows.map((row) => row.id);
    },
    async listUserDocuments(tenantId: string, userId: string, filters: { type?: UserDocumentType }, page: PageParams, tx: DbOrTx = db) {
      const where = and(eq(userDocuments.tenantId, tenantId), eq(userDocuments.userId, userId), filters.type ? eq(userDocuments.type, filters.type) : undefined);
      const [total] = await tx.select({ n: count() }).from(userDocuments).where(where);
      const rows = await tx.select().from(userDocuments).where(where).orderBy(desc(userDocuments.id)).limit(page.limit).offset(page.offset);
      return { total: Number(total?.n ?? 0), rows };
    },

    // ---- tenant documents
    async insertTenantDocument(tenantId: string, row: Omit<TenantDocumentRow, 'tenantId'>, tx: DbOrTx = db): Promise<TenantDocumentRow> {
      const [created] = await tx.insert(tenantDocuments).values({ ...row, tenantId }).returning();
      return created!;
    },
    /** A live (not deleted) tenant document; `lock` takes a row lock for the change that follows. */
    async findTenantDocument(tenantId: string, id: string, tx: DbOrTx = db, lock = false): Promise<TenantDocumentRow | undefined> {
      const query = tx
        .select()
        .from(tenantDocuments)
        .where(and(eq(tenantDocuments.tenantId, tenantId), eq(tenantDocuments.id, id), isNull(tenantDocuments.deletedAt)))
        .limit(1);
      const [row] = lock ? await query.for('update') : await query;
      return row;
    },
    async listTenantDocuments(tenantId: string, page: PageParams, tx: DbOrTx = db) {
      const where = and(eq(tenantDocuments.tenantId, tenantId), isNull(tenantDocuments.deletedAt));
      const [total] = await tx.select({ n: count() }).from(tenantDocuments).where(where);
      const rows = await tx.select().from(tenantDocuments).where(where).orderBy(desc(tenantDocuments.id)).limit(page.limit).offset(page.offset);
      return { total: Number(total?.n ?? 0), rows };
    },
    async updateTenantDocument(tenantId: string, id: string, changes: Partial<Pick<TenantDocumentRow, 'title' | 'metadata' | 'updatedAt' | 'deletedAt'>>, tx: DbOrTx = db) {
      const [row] = await tx
        .update(tenantDocuments)
        .set(changes)
        .where(and(eq(tenantDocuments.tenantId, tenantId), eq(tenantDocuments.id, id)))
        .returning();
      return row!;
    },

    // ---- signing nonces
    async insertNonce(tenantId: string, row: Omit<SigningNonceRow, 'tenantId'>, tx: DbOrTx = db): Promise<void> {
      await tx.insert(documentSigningNonces).values({ ...row, tenantId });
    },
    async findNonce(tenantId: string, nonce: string, tx: DbOrTx = db): Promise<SigningNonceRow | undefined> {
      const [row] = await tx
        .select()
        .from(documentSigningNonces)
        .where(and(eq(documentSigningNonces.tenantId, tenantId), eq(documentSigningNonces.nonce, nonce)))
        .limit(1);
      return row;
    },
    /** Marks the nonce used; false when it already was (a concurrent use won). */
    async consumeNonce(tenantId: string, nonce: string, now: Date, tx: DbOrTx = db): Promise<boolean> {
      const rows = await tx
        .update(documentSigningNonces)
        .set({ consumedAt: now })
        .where(and(eq(documentSigningNonces.tenantId, tenantId), eq(documentSigningNonces.nonce, nonce), isNull(documentSigningNonces.consumedAt)))
        .returning({ nonce: documentSigningNonces.nonce });
      return rows.length === 1;
    },
    async deleteOldNonces(tenantId: string, userId: string, before: Date, tx: DbOrTx = db): Promise<void> {
      await tx
        .delete(documentSigningNonces)
        .where(and(eq(documentSigningNonces.tenantId, tenantId), eq(documentSigningNonces.userId, userId), lt(documentSigningNonces.expiresAt, before)));
    },

    // ---- signed documents
    async insertSigned(tenantId: string, row: Omit<SignedDocumentRow, 'tenantId'>, tx: DbOrTx = db): Promise<SignedDocumentRow> {
      const [created] = await tx.insert(signedDocuments).values({ ...row, tenantId }).returning();
      return created!;
    },
    async findSigned(tenantId: string, id: string, tx: DbOrTx = db): Promise<SignedDocumentRow | undefined> {
      const [row] = await tx.select().from(signedDocuments).where(and(eq(signedDocuments.tenantId, tenantId), eq(signedDocuments.id, id))).limit(1);
      return row;
    },
    async findSignature(tenantId: string, key: { documentId: string; userId: string; chain: SigningChain; address: string }, tx: DbOrTx = db) {
      const [row] = await tx
        .select({ id: signedDocuments.id })
        .from(signedDocuments)
        .where(
          and(
            eq(signedDocuments.tenantId, tenantId),
            eq(signedDocuments.documentId, key.documentId),
            eq(signedDocuments.userId, key.userId),
            eq(signedDocuments.chain, key.chain),
            eq(signedDocuments.address, key.address),
          ),
        )
        .limit(1);
      return row;
    },
    async countSignatures(tenantId: string, documentId: string, tx: DbOrTx = db): Promise<number> {
      const [row] = await tx.select({ n: count() }).from(signedDocuments).where(and(eq(signedDocuments.tenantId, tenantId), eq(signedDocuments.documentId, documentId)));
      return Number(row?.n ?? 0);
    },
    async listSigned(tenantId: string, filters: { userId?: string; documentId?: string }, page: PageParams, tx: DbOrTx = db) {
      const conditions: SQL[] = [eq(signedDocuments.tenantId, tenantId)];
      if (filters.userId) conditions.push(eq(signedDocuments.userId, filters.userId));
      if (filters.documentId) conditions.push(eq(signedDocuments.documentId, filters.documentId));
      const where = and(...conditions);
      const [total] = await tx.select({ n: count() }).from(signedDocuments).where(where);
      const rows = await tx.select().from(signedDocuments).where(where).orderBy(desc(signedDocuments.id)).limit(page.limit).offset(page.offset);
      return { total: Number(total?.n ?? 0), rows };
    },

    /** Whether any row of any tenant points at the blob (the storage sweep asks). */
    async referencesBlob(key: string): Promise<boolean> {
      const [user] = await db.select({ id: userDocuments.id }).from(userDocuments).where(eq(userDocuments.blobKey, key)).limit(1);
      if (user) return true;
      const [tenant] = await db.select({ id: tenantDocuments.id }).from(tenantDocuments).where(eq(tenantDocuments.blobKey, key)).limit(1);
      return Boolean(tenant);
    },
  };
}

export type DocumentsRepo = ReturnType<typeof createDocumentsRepo>;
