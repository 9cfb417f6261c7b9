import { and, asc, count, desc, eq, ne, sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import type { DbOrTx } from '../../platform/db/client.js';
import { rowJson } from '../../platform/db/json-row.js';
import type { PageParams } from '../../platform/http/pagination.js';
import { accreditations, type AccreditationRow } from './table.js';

export function createAccreditationsRepo(db: DbOrTx) {
  return {
    async insert(tenantId: string, row: Omit<AccreditationRow, 'tenantId'>, tx: DbOrTx = db): Promise<AccreditationRow> {
      const [created] = await tx
        .insert(accreditations)
        .values({ ...row, tenantId })
        .returning();
      return created!;
    },

    async findById(tenantId: string, id: string, tx: DbOrTx = db, lock = false): Promise<AccreditationRow | undefined> {
      const query = tx
        .select()
        .from(accreditations)
        .where(and(eq(accreditations.tenantId, tenantId), eq(accreditations.id, id)))
        .limit(1);
      const [row] = lock ? await query.for('update') : await query;
      return row;
    },

    async update(tenantId: string, id: string, changes: Partial<Omit<AccreditationRow, 'tenantId' | 'id'>>, tx: DbOrTx = db): Promise<AccreditationRow> {
      const [row] = await tx
        .update(accreditations)
        .set(changes)
        .where(and(eq(accreditations.tenantId, tenantId), eq(accreditations.id, id)))
        .returning();
      return row!;
    },

    async countByUser(tenantId: string, userId: string, tx: DbOrTx = db): Promise<number> {
      const [row] = await tx
        .select({ n: count() })
        .from(accreditations)
        .where(and(eq(accreditations.tenantId, tenantId), eq(accreditations.userId, userId)));
      return Number(row?.n ?? 0);
    },

    /** Newest first. */
    async listByUser(tenantId: string, userId: string, page: PageParams, tx: DbOrTx = db): Promise<AccreditationRow[]> {
      return tx
        .select()
        .from(accreditations)
        .where(and(eq(accreditations.tenantId, tenantId), eq(accreditations.userId, userId)))
        .orderBy(desc(accreditations.id))
        .limit(page.limit)
        .offset(page.offset);
    },

    async countPending(tenantId: string, tx: DbOrTx = db): Promise<number> {
      const [row] = await tx
        .select({ n: count() })
        .from(accreditations)
        .where(and(eq(accreditations.tenantId, tenantId), eq(accreditations.status, 'pending')));
      return Number(row?.n ?? 0);
    },

    /** The tenant's pending claims, oldest first (the review queue). */
    async listPending(tenantId: string, page: PageParams, tx: DbOrTx = db): Promise<AccreditationRow[]> {
      return tx
        .select()
        .from(accreditations)
        .where(and(eq(accreditations.tenantId, tenantId), eq(accreditations.status, 'pending')))
        .orderBy(asc(accreditations.createdAt), asc(accreditations.id))
        .limit(page.limit)
        .offset(page.offset);
    },

    /** The user's most recently decided claim. */
    /** The user's most recently decided claim's status and type as one JSON value (null: none), a scalar subquery for the identity read. */
    latestDecidedJson(tenantId: SQLWrapper, userId: SQLWrapper): SQL {
      return rowJson(
        { status: accreditations.status, type: accreditations.type },
        accreditations,
        and(eq(accreditations.tenantId, tenantId), eq(accreditations.userId, userId), ne(accreditations.status, 'pending'))!,
        sql`${desc(accreditations.decidedAt)}, ${desc(accreditations.id)}`,
      );
    },

  };
}

export type AccreditationsRepo = ReturnType<typeof createAccreditationsRepo>;
