import { and, count, desc, eq, lt, sql, type SQL } from 'drizzle-orm';
import type { Db, DbOrTx } from '../../platform/db/client.js';
import { preparedQuery } from '../../platform/db/prepared.js';
import { rowReadTemplate, updateTemplate, type RowRead, type TemplateWrite } from '../../platform/db/write-together.js';
import type { PageParams } from '../../platform/http/pagination.js';
import { custodyTransactions, custodyTransfers, custodyVaults, type CustodyTransactionRow, type CustodyTransferRow, type CustodyVaultRow } from './table.js';

/** A change of a transaction's columns, from a template per set of columns (writeTogether). */
const updateTransactionRow = updateTemplate(custodyTransactions, ['tenantId', 'id']);
/** A transaction by the provider's id (unique in the tenant), locked: a webhook's read in its claim's statement. */
const lockedByProviderId = rowReadTemplate<typeof custodyTransactions, 'tenantId' | 'providerId'>(custodyTransactions, (q, value) =>
  q
    .select()
    .from(custodyTransactions)
    .where(and(eq(custodyTransactions.tenantId, value('tenantId')), eq(custodyTransactions.providerTransactionId, value('providerId'))))
    .for('update'),
);
export function createCustodyRepo(db: Db) {
  const first = <T>(rows: T[]) => rows[0];
  // A transaction by the provider's id, as a prepared statement (a webhook reads it locked: lockedByProviderId).
  const byProviderIdQuery = (q: DbOrTx) =>
    q
      .select()
      .from(custodyTransactions)
      .where(and(eq(custodyTransactions.tenantId, sql.placeholder('tenantId')), eq(custodyTransactions.providerTransactionId, sql.placeholder('providerId'))))
      .limit(1);
  type ByProviderId = { tenantId: string; providerId: string };
  const byProviderId = preparedQuery<CustodyTransactionRow[], ByProviderId>(db, 'custody_transaction_by_provider_id', byProviderIdQuery);
  const vaultById = preparedQuery<CustodyVaultRow[], { tenantId: string; id: string }>(db, 'custody_vault_by_id', (q) =>
    q
      .select()
      .from(custodyVaults)
      .where(and(eq(custodyVaults.tenantId, sql.placeholder('tenantId')), eq(custodyVaults.id, sql.placeholder('id'))))
      .limit(1),
  );
  return {
    async insertVault(tenantId: string, row: Omit<CustodyVaultRow, 'tenantId'>, tx: DbOrTx = db) {
      await tx.insert(custodyVaults).values({ ...row, tenantId });
    },
    findVault: async (tenantId: string, id: string, tx: DbOrTx = db) => first(await vaultById({ tenantId, id }, tx)),

    /** Inserts the transaction unless the provider's id is known; answers the new row, or undefined when it was known. */
    async insertTransaction(tenantId: string, row: Omit<typeof custodyTransactions.$inferInsert, 'tenantId'>, tx: DbOrTx = db): Promise<CustodyTransactionRow | undefined> {
      const [inserted] = await tx.insert(custodyTransactions).values({ ...row, tenantId }).onConflictDoNothing().returning();
      return inserted;
    },
    findTransaction: async (tenantId: string, id: string, tx: DbOrTx = db) =>
      first(await tx.select().from(custodyTransactions).where(and(eq(custodyTransactions.tenantId, tenantId), eq(custodyTransactions.id, id))).limit(1)),
    /** The row again, locked until the transaction `tx` ends: concurrent status updates of one row take turns. */
    lockTransaction: async (tenantId: string, id: string, tx: DbOrTx) =>
      first(await tx.select().from(custodyTransactions).where(and(eq(custodyTransactions.tenantId, tenantId), eq(custodyTransactions.id, id))).limit(1).for('update')),
    findTransactionByProviderId: async (tenantId: string, providerId: string, tx: DbOrTx = db) => first(await byProviderId({ tenantId, providerId }, tx)),
    /** findTransactionByProviderId locked (until the transaction ends), as a read for a statement that also writes (a webhook's claim). */
    lockedTransactionRead: (tenantId: string, providerId: string, tx: DbOrTx = db): RowRead<CustodyTransactionRow> => lockedByProviderId(tx, { tenantId, providerId }),
    /** updateTransaction's statement, built but not run (writeTogether). */
    updateTransactionStatement(tenantId: string, id: string, patch: Partial<CustodyTransactionRow>, tx: DbOrTx = db): TemplateWrite {
      return updateTransactionRow(tx, { tenantId, id }, patch);
    },
    async updateTransaction(tenantId: string, id: string, patch: Partial<CustodyTransactionRow>, tx: DbOrTx = db): Promise<CustodyTransactionRow> {
      const [row] = await tx.update(custodyTransactions).set(patch).where(and(eq(custodyTransactions.tenantId, tenantId), eq(custodyTransactions.id, id))).returning();
      return row!;
    },

    async insertTransfer(tenantId: string, row: Omit<typeof custodyTransfers.$inferInsert, 'tenantId'>, tx: DbOrTx = db): Promise<CustodyTransferRow | undefined> {
      const [inserted] = await tx.insert(custodyTransfers).values({ ...row, tenantId }).onConflictDoNothing().returning();
      return inserted;
    },
    findTransfer: async (tenantId: string, id: string, tx: DbOrTx = db) =>
      first(await tx.select().from(custodyTransfers).where(and(eq(custodyTransfers.tenantId, tenantId), eq(custodyTransfers.id, id))).limit(1)),
    /** The row again, locked until the transaction `tx` ends: concurrent status updates of one row take turns. */
    lockTransfer: async (tenantId: string, id: string, tx: DbOrTx) =>
      first(await tx.select().from(custodyTransfers).where(and(eq(custodyTransfers.tenantId, tenantId), eq(custodyTransfers.id, id))).limit(1).for('update')),
    findTransferByProviderId: async (tenantId: string, provider: string, providerId: string, tx: DbOrTx = db) =>
      first(
        await tx
          .select()
          .from(custodyTransfers)
          .where(and(eq(custodyTransfers.tenantId, tenantId), eq(custodyTransfers.provider, provider), eq(custodyTransfers.providerTransferId, providerId)))
          .limit(1),
      ),
    async updateTransfer(tenantId: string, id: string, patch: Partial<CustodyTransferRow>, tx: DbOrTx = db): Promise<CustodyTransferRow> {
      const [row] = await tx.update(custodyTransfers).set(patch).where(and(eq(custodyTransfers.tenantId, tenantId), eq(custodyTransfers.id, id))).returning();
      return row!;
    },
    async countTransfers(tenantId: string, userId: string): Promise<number> {
      const [row] = await db.select({ n: count() }).from(custodyTransfers).where(and(eq(custodyTransfers.tenantId, tenantId), eq(custodyTransfers.userId, userId)));
      return Number(row?.n ?? 0);
    },
    async listTransfers(tenantId: string, userId: string, page: PageParams): Promise<CustodyTransferRow[]> {
      return db
        .select()
        .from(custodyTransfers)
        .where(and(eq(custodyTransfers.tenantId, tenantId), eq(custodyTransfers.userId, userId)))
        .orderBy(desc(custodyTransfers.id))
        .limit(page.limit)
        .offset(page.offset ?? 0);
    },

    /** The tenant's transfers (optionally of one user, in one status), newest first; `beforeId` pages by keyset. */
    async countTenantTransfers(tenantId: string, filters: TransferFilters): Promise<number> {
      const [row] = await db.select({ n: count() }).from(custodyTransfers).where(and(...transferConditions(tenantId, filters)));
      return Number(row?.n ?? 0);
    },
    async listTenantTransfers(tenantId: string, filters: TransferFilters, page: PageParams): Promise<CustodyTransferRow[]> {
      const conditions = transferConditions(tenantId, filters);
      if (page.beforeId !== undefined) conditions.push(lt(custodyTransfers.id, page.beforeId));
      return db
        .select()
        .from(custodyTransfers)
        .where(and(...conditions))
        .orderBy(desc(custodyTransfers.id))
        .limit(page.limit)
        .offset(page.beforeId !== undefined ? 0 : (page.offset ?? 0));
    },
  };
}

export interface TransferFilters {
  status?: string;
  userId?: string;
}

function transferConditions(tenantId: string, filters: TransferFilters): SQL[] {
  const conditions: SQL[] = [eq(custodyTransfers.tenantId, tenantId)];
  if (filters.userId !== undefined) conditions.push(eq(custodyTransfers.userId, filters.userId));
  if (filters.status !== undefined) conditions.push(eq(custodyTransfers.status, filters.status));
  return conditions;
}

export type CustodyRepo = ReturnType<typeof createCustodyRepo>;
