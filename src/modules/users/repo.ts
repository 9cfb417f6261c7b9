import { and, asc, count, eq, gt, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '../../platform/db/client.js';
import { rowCounts } from '../../platform/db/counters-table.js';
import type { PageParams } from '../../platform/http/pagination.js';
import { users, type NewUserRow, type UserRow } from './table.js';

export interface UserFilters {
  email?: string;
  evmEoa?: string;
  xrplSecureAccountAddress?: string;
}

function filterConditions(tenantId: string, filters: UserFilters): SQL[] {
  const conditions: SQL[] = [eq(users.tenantId, tenantId)];
  if (filters.email !== undefined) conditions.push(eq(users.email, filters.email));
  if (filters.evmEoa !== undefined) conditions.push(eq(users.evmEoa, filters.evmEoa));
  if (filters.xrplSecureAccountAddress !== undefined) {
    conditions.push(eq(users.xrplSecureAccountAddress, filters.xrplSecureAccountAddress));
  }
  return conditions;
}

export function createUsersRepo(db: DbOrTx) {
  return {
    async insert(tenantId: string, row: Omit<NewUserRow, 'tenantId'>, tx: DbOrTx = db): Promise<UserRow> {
      const [created] = await tx
        .insert(users)
        .values({ ...row, tenantId })
        .returning();
      return created!;
    },

    async findById(tenantId: string, id: string, tx: DbOrTx = db): Promise<UserRow | undefined> {
      const [row] = await tx
        .select()
        .from(users)
        .where(and(eq(users.tenantId, tenantId), eq(users.id, id)))
        .limit(1);
      return row;
    },

    async findByEmail(tenantId: string, email: string, tx: DbOrTx = db): Promise<UserRow | undefined> {
      const [row] = await tx
        .select()
        .from(users)
        .where(and(eq(users.tenantId, tenantId), eq(users.email, email)))
        .limit(1);
      return row;
    },

    async update(
      tenantId: string,
      id: string,
      changes: Partial<Omit<NewUserRow, 'tenantId' | 'id' | 'createdAt'>>,
      tx: DbOrTx = db,
    ): Promise<UserRow | undefined> {
      const [row] = await tx
        .update(users)
        .set(changes)
        .where(and(eq(users.tenantId, tenantId), eq(users.id, id)))
        .returning();
      return row;
    },

    /** Total for a list: the trigger-kept counter when unfiltered, an indexed count otherwise. */
    async count(tenantId: string, filters: UserFilters, tx: DbOrTx = db): Promise<number> {
      const filtered = Object.values(filters).some((v) => v !== undefined);
      if (!filtered) {
        const [row] = await tx
          .select({ n: rowCounts.n })
          .from(rowCounts)
          .where(and(eq(rowCounts.tenantId, tenantId), eq(rowCounts.relation, 'users')));
        return Number(row?.n ?? 0);
      }
      const [row] = await tx
        .select({ n: count() })
        .from(users)
        .where(and(...filterConditions(tenantId, filters)));
      return Number(row?.n ?? 0);
    },

    async list(tenantId: string, filters: UserFilters, page: PageParams, tx: DbOrTx = db): Promise<UserRow[]> {
      const conditions = filterConditions(tenantId, filters);
      if (page.afterId) conditions.push(gt(users.id, page.afterId));
      return tx
        .select()
        .from(users)
        .where(and(...conditions))
        .orderBy(asc(users.id))
        .limit(page.limit)
        .offset(page.offset);
    },
  };
}

export type UsersRepo = ReturnType<typeof createUsersRepo>;
