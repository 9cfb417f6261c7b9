import { and, asc, count, desc, eq, inArray, lte, type SQL } from 'drizzle-orm';
import { columnsWithTotal } from '../../platform/db/counted-page.js';
import type { DbOrTx } from '../../platform/db/client.js';
import type { PageParams } from '../../platform/http/pagination.js';
import { EXPIRING_STATUSES, type KycStatus } from './state.js';
import { kycRecords, type KycRow, type NewKycRow } from './table.js';

export interface KycFilters {
  userId?: string;
  status?: KycStatus;
  provider?: string;
}

type KycChanges = Partial<Omit<NewKycRow, 'tenantId' | 'id' | 'userId' | 'createdAt'>>;

function conditions(tenantId: string, filters: KycFilters): SQL[] {
  const where: SQL[] = [eq(kycRecords.tenantId, tenantId)];
  if (filters.userId !== undefined) where.push(eq(kycRecords.userId, filters.userId));
  if (filters.status !== undefined) where.push(eq(kycRecords.status, filters.status));
  if (filters.provider !== undefined) where.push(eq(kycRecords.provider, filters.provider as KycRow['provider']));
  return where;
}

export function createKycRepo(db: DbOrTx) {
  return {
    async insert(tenantId: string, row: Omit<NewKycRow, 'tenantId'>, tx: DbOrTx = db): Promise<KycRow> {
      const [created] = await tx
        .insert(kycRecords)
        .values({ ...row, tenantId })
        .returning();
      return created!;
    },

    /** With `lock`, the row is locked until the transaction ends (transitions serialise on it). */
    async findById(tenantId: string, id: string, tx: DbOrTx = db, lock = false): Promise<KycRow | undefined> {
      const query = tx
        .select()
        .from(kycRecords)
        .where(and(eq(kycRecords.tenantId, tenantId), eq(kycRecords.id, id)))
        .limit(1);
      const [row] = lock ? await query.for('update') : await query;
      return row;
    },

    async findBySession(tenantId: string, provider: string, sessionId: string, tx: DbOrTx = db): Promise<KycRow | undefined> {
      const [row] = await tx
        .select()
        .from(kycRecords)
        .where(
          and(
            eq(kycRecords.tenantId, tenantId),
            eq(kycRecords.provider, provider as KycRow['provider']),
            eq(kycRecords.providerSessionId, sessionId),
          ),
        )
        .limit(1);
      return row;
    },

    async update(tenantId: string, id: string, changes: KycChanges, tx: DbOrTx = db): Promise<KycRow | undefined> {
      const [row] = await tx
        .update(kycRecords)
        .set(changes)
        .where(and(eq(kycRecords.tenantId, tenantId), eq(kycRecords.id, id)))
        .returning();
      return row;
    },

    /** The user's latest attempt (greatest UUIDv7 id). */
    async latestForUser(tenantId: string, userId: string, tx: DbOrTx = db): Promise<KycRow | undefined> {
      const [row] = await tx
        .select()
        .from(kycRecords)
        .where(and(eq(kycRecords.tenantId, tenantId), eq(kycRecords.userId, userId)))
        .orderBy(desc(kycRecords.id))
        .limit(1);
      return row;
    },

    /** Ids of sessions past their expiry still waiting on the person (oldest first, at most `limit`). */
    async findDue(tenantId: string, userId: string | undefined, now: Date, limit: number, tx: DbOrTx = db): Promise<string[]> {
      const where: SQL[] = [
        eq(kycRecords.tenantId, tenantId),
        inArray(kycRecords.status, [...EXPIRING_STATUSES]),
        lte(kycRecords.expiresAt, now),
      ];
      if (userId !== undefined) where.push(eq(kycRecords.userId, userId));
      const rows = await tx
        .select({ id: kycRecords.id })
        .from(kycRecords)
        .where(and(...where))
        .orderBy(asc(kycRecords.id))
        .limit(limit);
      return rows.map((r) => r.id);
    },

    async count(tenantId: string, filters: KycFilters, tx: DbOrTx = db): Promise<number> {
      const [row] = await tx
        .select({ n: count() })
        .from(kycRecords)
        .where(and(...conditions(tenantId, filters)));
      return Number(row?.n ?? 0);
    },

    /** An offset page of list, each row with the total of the matching attempts (counted-page.ts): for one user's attempts. */
    async pageWithTotal(tenantId: string, filters: KycFilters, page: PageParams, tx: DbOrTx = db) {
      return tx
        .select(columnsWithTotal(kycRecords))
        .from(kycRecords)
        .where(and(...conditions(tenantId, filters)))
        .orderBy(desc(kycRecords.id))
        .limit(page.limit)
        .offset(page.offset);
    },

    /** Newest first. */
    async list(tenantId: string, filters: KycFilters, page: PageParams, tx: DbOrTx = db): Promise<KycRow[]> {
      return tx
        .select()
        .from(kycRecords)
        .where(and(...conditions(tenantId, filters)))
        .orderBy(desc(kycRecords.id))
        .limit(page.limit)
        .offset(page.offset);
    },

  };
}

export type KycRepo = ReturnType<typeof createKycRepo>;
