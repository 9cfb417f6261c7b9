import { and, asc, eq, inArray, isNull } from 'drizzle-orm';
import type { DbOrTx } from '../../platform/db/client.js';
import { bankLinkItems, bankLinkOriginators, type BankLinkItemRow, type BankLinkOriginatorRow } from './table.js';

export function createBankLinkRepo(db: DbOrTx) {
  return {
    async insertItem(tenantId: string, row: Omit<BankLinkItemRow, 'tenantId'>, tx: DbOrTx = db): Promise<BankLinkItemRow> {
      const [created] = await tx.insert(bankLinkItems).values({ ...row, tenantId }).returning();
      return created!;
    },
    /** The items of one owner: a user, or the tenant itself (userId null). */
    async listItems(tenantId: string, userId: string | null, tx: DbOrTx = db): Promise<BankLinkItemRow[]> {
      return tx
        .select()
        .from(bankLinkItems)
        .where(and(eq(bankLinkItems.tenantId, tenantId), userId === null ? isNull(bankLinkItems.userId) : eq(bankLinkItems.userId, userId)))
        .orderBy(asc(bankLinkItems.id))
        .limit(200);
    },
    async findItem(tenantId: string, id: string, tx: DbOrTx = db, lock = false): Promise<BankLinkItemRow | undefined> {
      const q = tx.select().from(bankLinkItems).where(and(eq(bankLinkItems.tenantId, tenantId), eq(bankLinkItems.id, id))).limit(1);
      const [row] = lock ? await q.for('update') : await q;
      return row;
    },
    async findItemByProviderId(tenantId: string, providerItemId: string, tx: DbOrTx = db, lock = false): Promise<BankLinkItemRow | undefined> {
      const q = tx
        .select()
        .from(bankLinkItems)
        .where(and(eq(bankLinkItems.tenantId, tenantId), eq(bankLinkItems.providerItemId, providerItemId)))
        .limit(1);
      const [row] = lock ? await q.for('update') : await q;
      return row;
    },
    async updateItem(tenantId: string, id: string, changes: Partial<Omit<BankLinkItemRow, 'tenantId' | 'id'>>, tx: DbOrTx = db): Promise<void> {
      await tx.update(bankLinkItems).set(changes).where(and(eq(bankLinkItems.tenantId, tenantId), eq(bankLinkItems.id, id)));
    },
    async deleteItem(tenantId: string, id: string, tx: DbOrTx = db): Promise<boolean> {
      const deleted = await tx.delete(bankLinkItems).where(and(eq(bankLinkItems.tenantId, tenantId), eq(bankLinkItems.id, id))).returning({ id: bankLinkItems.id });
      return deleted.length > 0;
    },

    async insertOriginator(tenantId: string, row: Omit<BankLinkOriginatorRow, 'tenantId'>, tx: DbOrTx = db): Promise<void> {
      await tx.insert(bankLinkOriginators).values({ ...row, tenantId }).onConflictDoNothing();
    },
    async findOriginator(tenantId: string, originatorClientId: string, tx: DbOrTx = db): Promise<BankLinkOriginatorRow | undefined> {
      const [row] = await tx
        .select()
        .from(bankLinkOriginators)
        .where(and(eq(bankLinkOriginators.tenantId, tenantId), eq(bankLinkOriginators.originatorClientId, originatorClientId)))
        .limit(1);
      return row;
    },
    async listOriginators(tenantId: string, ids: string[], tx: DbOrTx = db): Promise<BankLinkOriginatorRow[]> {
      if (ids.length === 0) return [];
      return tx
        .select()
        .from(bankLinkOriginators)
        .where(and(eq(bankLinkOriginators.tenantId, tenantId), inArray(bankLinkOriginators.originatorClientId, ids)));
    },
    async updateOriginator(tenantId: string, originatorClientId: string, changes: Partial<Pick<BankLinkOriginatorRow, 'diligenceStatus' | 'companyName' | 'updatedAt'>>, tx: DbOrTx = db): Promise<void> {
      await tx
        .update(bankLinkOriginators)
        .set(changes)
        .where(and(eq(bankLinkOriginators.tenantId, tenantId), eq(bankLinkOriginators.originatorClientId, originatorClientId)));
    },
  };
}

export type BankLinkRepo = ReturnType<typeof createBankLinkRepo>;
