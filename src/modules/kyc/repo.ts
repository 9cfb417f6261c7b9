import { and, asc, count, desc, eq, inArray, lte, sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import { columnsWithTotal } from '../../platform/db/counted-page.js';
import type { DbOrTx } from '../../platform/db/client.js';
import { rowJson } from '../../platform/db/json-row.js';
import { preparedQuery } from '../../platform/db/prepared.js';
import { rowReadTemplate, updateTemplate, type RowRead, type TemplateCondition, type TemplateWrite } from '../../platform/db/write-together.js';
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


type LatestKey = 'tenantId' | 'userId' | 'id';
/** isLatestOfUser's text, built once per shape of the update it is the condition of. */
const latestOfUser = (value: (name: LatestKey) => SQLWrapper): SQL =>
  sql`not exists (select 1 from ${kycRecords} where ${kycRecords.tenantId} = ${value('tenantId')} and ${kycRecords.userId} = ${value('userId')} and ${kycRecords.id} > ${value('id')})`;
const updateRecord = updateTemplate(kycRecords, ['tenantId', 'id']);
const lockedRecord = rowReadTemplate<typeof kycRecords, 'tenantId' | 'id'>(kycRecords, (q, value) =>
  q.select().from(kycRecords).where(and(eq(kycRecords.tenantId, value('tenantId')), eq(kycRecords.id, value('id')))).for('update'),
);
export function createKycRepo(db: DbOrTx) {
  // The reads of every webhook and transition, as prepared statements (preparedQuery).
  const ofTenant = eq(kycRecords.tenantId, sql.placeholder('tenantId'));
  const byIdQuery = (q: DbOrTx) => q.select().from(kycRecords).where(and(ofTenant, eq(kycRecords.id, sql.placeholder('id')))).limit(1);
  const byId = preparedQuery<KycRow[], { tenantId: string; id: string }>(db, 'kyc_by_id', byIdQuery);
  const byIdLocked = preparedQuery<KycRow[], { tenantId: string; id: string }>(db, 'kyc_by_id_for_update', (q) => byIdQuery(q).for('update'));
  // One user's attempts, an offset page: the rows, the total and how many are due to expire at
  // `now`, in one prepared statement (GET /kyc/attempts reads it on every poll).
  const userPage = preparedQuery<Array<KycRow & { total: number; due: number }>, { tenantId: string; userId: string; now: string; limit: number; offset: number }>(
    db,
    'kyc_user_page',
    (q) =>
      q
        .select({
          ...columnsWithTotal(kycRecords),
          due: sql<number>`count(*) filter (where ${inArray(kycRecords.status, [...EXPIRING_STATUSES])} and ${kycRecords.expiresAt} <= ${sql.placeholder('now')}::timestamptz) over ()`
            .mapWith(Number)
            .as('page_due'),
        })
        .from(kycRecords)
        .where(and(ofTenant, eq(kycRecords.userId, sql.placeholder('userId'))))
        .orderBy(desc(kycRecords.id))
        .limit(sql.placeholder('limit'))
        .offset(sql.placeholder('offset')),
  );

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
      const [row] = await (lock ? byIdLocked : byId)({ tenantId, id }, tx);
      return row;
    },

    /** findById with `lock`, as a read for a statement that also writes (a webhook's claim). */
    lockedRead(tenantId: string, id: string, tx: DbOrTx = db): RowRead<KycRow> {
      return lockedRecord(tx, { tenantId, id });
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

    /** An update of the record as a write not yet run (writeTogether), from a template per set of columns. */
    updateStatement(tenantId: string, id: string, changes: KycChanges, tx: DbOrTx = db): TemplateWrite {
      return updateRecord(tx, { tenantId, id }, changes);
    },

    /** A condition that holds while record `id` is its user's latest attempt (no greater UUIDv7 id). */
    isLatestOfUser(tenantId: string, userId: string, id: string): TemplateCondition<LatestKey> {
      return { build: latestOfUser, values: { tenantId, userId, id } };
    },

    async update(tenantId: string, id: string, changes: KycChanges, tx: DbOrTx = db): Promise<KycRow | undefined> {
      const [row] = await tx
        .update(kycRecords)
        .set(changes)
        .where(and(eq(kycRecords.tenantId, tenantId), eq(kycRecords.id, id)))
        .returning();
      return row;
    },

    /**
     * The user's latest attempt's identity-relevant fields as one JSON value (null: no attempt),
     * a scalar subquery for the identity module's read of every source in one statement.
     */
    latestForUserJson(tenantId: SQLWrapper, userId: SQLWrapper): SQL {
      return rowJson(
        {
          status: kycRecords.status,
          country: kycRecords.country,
          level: kycRecords.level,
          provider: kycRecords.provider,
          decidedAt: kycRecords.decidedAt,
          walletVerified: kycRecords.walletVerified,
          walletAddress: kycRecords.walletAddress,
        },
        kycRecords,
        and(eq(kycRecords.tenantId, tenantId), eq(kycRecords.userId, userId))!,
        desc(kycRecords.id),
      );
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

    /**
     * An offset page of one user's attempts, each row with the total (counted-page.ts) and the
     * number of the user's attempts due to expire at `now` (`due`; 0 when the page is empty).
     */
    async userPageWithDue(tenantId: string, userId: string, now: Date, page: PageParams) {
      return userPage({ tenantId, userId, now: now.toISOString(), limit: page.limit, offset: page.offset });
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
