import { and, asc, count, eq, gt, inArray, isNull, sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import type { DbOrTx } from '../../platform/db/client.js';
import { rowCountQuery } from '../../platform/db/counters-table.js';
import { rowJson } from '../../platform/db/json-row.js';
import { preparedQuery } from '../../platform/db/prepared.js';
import { rowInsertTemplate, updateTemplate, writeTemplate, type TemplateCondition, type TemplateWrite } from '../../platform/db/write-together.js';
import type { PageParams } from '../../platform/http/pagination.js';
import { users, type NewUserRow, type UserRow } from './table.js';

export interface UserFilters {
  email?: string;
  /** One form, or the forms an address may be stored in (EIP-55 and lower case). */
  evmEoa?: string | string[];
  xrplSecureAccountAddress?: string;
}

/** The user's key columns, for another module's join condition (byEmailWith). */
const userKey = { tenantId: users.tenantId, id: users.id };
export type UserKeyColumns = typeof userKey;
/** A user with one row of another module's table (null when none matched). */
export interface UserWith<T extends PgTable> {
  user: UserRow;
  joined: T['$inferSelect'] | null;
}

const isFiltered = (filters: UserFilters) => Object.values(filters).some((v) => v !== undefined);

function filterConditions(tenantId: string, filters: UserFilters): SQL[] {
  const conditions: SQL[] = [eq(users.tenantId, tenantId)];
  if (filters.email !== undefined) conditions.push(eq(users.email, filters.email));
  if (filters.evmEoa !== undefined) {
    conditions.push(Array.isArray(filters.evmEoa) ? inArray(users.evmEoa, filters.evmEoa) : eq(users.evmEoa, filters.evmEoa));
  }
  if (filters.xrplSecureAccountAddress !== undefined) {
    conditions.push(eq(users.xrplSecureAccountAddress, filters.xrplSecureAccountAddress));
  }
  return conditions;
}

const tenant = sql.placeholder('tenantId');

const insertRow = rowInsertTemplate(users);

const userById = (value: (name: 'tenantId' | 'id') => SQLWrapper) => and(eq(users.tenantId, value('tenantId')), eq(users.id, value('id')));
const exists = writeTemplate<'tenantId' | 'id'>((db, value) => db.select({ id: users.id }).from(users).where(userById(value)));
// `w0`: the statement's first write, the link (a CTE's RETURNING is read by name).
const existsLinked = writeTemplate<'tenantId' | 'id'>((db, value) =>
  db
    .select({ id: users.id, linked: sql<boolean>`exists (select 1 from w0)`.as('linked') })
    .from(users)
    .where(userById(value)),
);

type AddressField = 'evmEoa' | 'evmCompatibleAddress' | 'xrplAddress' | 'xrplSecureAccountAddress';
/** For each wallet-address field, its update while empty (a template: one text per field). */
const setAddressIfEmpty = Object.fromEntries(
  (['evmEoa', 'evmCompatibleAddress', 'xrplAddress', 'xrplSecureAccountAddress'] as const).map((field) => [
    field,
    writeTemplate<'tenantId' | 'id' | 'address' | 'now'>((db, value) =>
      db
        .update(users)
        .set({ [field]: value('address'), updatedAt: value('now') as unknown as Date })
        .where(and(eq(users.tenantId, value('tenantId')), eq(users.id, value('id')), isNull(users[field])))
        .returning({ id: users.id }),
    ),
  ]),
) as Record<AddressField, (db: DbOrTx, values: { tenantId: string; id: string; address: string; now: Date }) => TemplateWrite>;

/** A change of some of a user's columns, from a template per set of columns (writeTogether). */
const updateUser = updateTemplate(users, ['tenantId', 'id']);
export function createUsersRepo(db: DbOrTx) {
  // The hot reads (every bearer request, login, unfiltered lists) as prepared statements.
  const byId = preparedQuery<UserRow[], { tenantId: string; id: string }>(db, 'users_by_id', (q) =>
    q.select().from(users).where(and(eq(users.tenantId, tenant), eq(users.id, sql.placeholder('id')))).limit(1),
  );
  const byEmail = preparedQuery<UserRow[], { tenantId: string; email: string }>(db, 'users_by_email', (q) =>
    q.select().from(users).where(and(eq(users.tenantId, tenant), eq(users.email, sql.placeholder('email')))).limit(1),
  );
  const counter = preparedQuery<Array<{ n: number }>, { tenantId: string }>(db, 'users_row_count', (q) =>
    rowCountQuery(q, 'users', tenant),
  );
  const pageQuery = (name: string, afterId: boolean) =>
    preparedQuery<UserRow[], { tenantId: string; afterId?: string; limit: number; offset: number }>(db, name, (q) =>
      q
        .select()
        .from(users)
        .where(afterId ? and(eq(users.tenantId, tenant), gt(users.id, sql.placeholder('afterId'))) : eq(users.tenantId, tenant))
        .orderBy(asc(users.id))
        .limit(sql.placeholder('limit'))
        .offset(sql.placeholder('offset')),
    );
  const pageFromStart = pageQuery('users_page', false);
  const pageAfterId = pageQuery('users_page_after_id', true);

  return {
    async insert(tenantId: string, row: Omit<NewUserRow, 'tenantId'>, tx: DbOrTx = db): Promise<UserRow> {
      const [created] = await tx
        .insert(users)
        .values({ ...row, tenantId })
        .returning();
      return created!;
    },

    /** The insert of a complete new row, not yet run (writeTogether). */
    insertStatement(row: UserRow, tx: DbOrTx = db): TemplateWrite {
      return insertRow(tx, row);
    },

    async findById(tenantId: string, id: string, tx: DbOrTx = db): Promise<UserRow | undefined> {
      const [row] = await byId({ tenantId, id }, tx);
      return row;
    },

    async findByEmail(tenantId: string, email: string, tx: DbOrTx = db): Promise<UserRow | undefined> {
      const [row] = await byEmail({ tenantId, email }, tx);
      return row;
    },

    /**
     * A prepared read of a user by (normalized) email with one row of another module's table
     * beside it, left-joined on `on` (given the user's key columns): login's user and credential
     * in one statement and one round trip instead of two. `joined` is null when no row matches.
     */
    byEmailWith<T extends PgTable>(name: string, table: T, on: (user: UserKeyColumns) => SQL) {
      const read = preparedQuery<Array<UserWith<T>>, { tenantId: string; email: string }>(db, name, (q) =>
        q
          .select({ user: users, joined: table } as never)
          .from(users)
          .leftJoin(table as never, on(userKey))
          .where(and(eq(users.tenantId, tenant), eq(users.email, sql.placeholder('email'))))
          .limit(1) as never,
      );
      return async (tenantId: string, email: string): Promise<UserWith<T> | undefined> => (await read({ tenantId, email }))[0];
    },

    /** Whether the user exists, as a boolean SQL expression (another module's list reads it in its own statement: pageActingFor). */
    existsSql(tenantId: SQLWrapper, id: SQLWrapper): SQL<boolean> {
      return sql<boolean>`exists (select 1 from ${users} where ${users.tenantId} = ${tenantId} and ${users.id} = ${id})`;
    },

    /** The user's id and registered wallet addresses as one JSON value (null: no such user), a scalar subquery for the identity read. */
    identityJson(tenantId: SQLWrapper, id: SQLWrapper): SQL {
      const fields = { id: users.id, evmEoa: users.evmEoa, evmCompatibleAddress: users.evmCompatibleAddress, xrplAddress: users.xrplAddress, xrplSecureAccountAddress: users.xrplSecureAccountAddress };
      return rowJson(fields, users, and(eq(users.tenantId, tenantId), eq(users.id, id))!);
    },

    /** An update of the user's row as a write not yet run (writeTogether), made only where `when` also holds. */
    updateStatement(tenantId: string, id: string, changes: Partial<Omit<NewUserRow, 'tenantId' | 'id' | 'createdAt'>>, when: TemplateCondition | undefined, tx: DbOrTx = db): TemplateWrite {
      return updateUser(tx, { tenantId, id }, changes, when);
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

    /**
     * Sets a wallet-address field only while it is empty (the first wallet of its kind stays
     * shown): the statement, built but not run, RETURNING the id when it set the field
     * (writeTogetherReturning, with the writes that go with it).
     */
    setAddressIfEmptyStatement(tenantId: string, id: string, field: AddressField, address: string, now: Date, tx: DbOrTx = db): TemplateWrite {
      return setAddressIfEmpty[field](tx, { tenantId, id, address, now });
    },

    /**
     * The user's row if it exists, as the main statement of writeTogetherReturning: `{ id }`,
     * with `linked` when the statement's first write (`w0`) is setAddressIfEmptyStatement's
     * (whether it set the field). No row: no such user.
     */
    existsStatement(tenantId: string, id: string, withLink: boolean, tx: DbOrTx = db): TemplateWrite {
      return (withLink ? existsLinked : exists)(tx, { tenantId, id });
    },

    /** Total for a list: the trigger-kept counter when unfiltered, an indexed count otherwise. */
    async count(tenantId: string, filters: UserFilters, tx: DbOrTx = db): Promise<number> {
      if (!isFiltered(filters)) {
        const [row] = await counter({ tenantId }, tx);
        return Number(row?.n ?? 0);
      }
      const [row] = await tx
        .select({ n: count() })
        .from(users)
        .where(and(...filterConditions(tenantId, filters)));
      return Number(row?.n ?? 0);
    },

    async list(tenantId: string, filters: UserFilters, page: PageParams, tx: DbOrTx = db): Promise<UserRow[]> {
      if (!isFiltered(filters)) {
        const params = { tenantId, limit: page.limit, offset: page.offset };
        return page.afterId ? pageAfterId({ ...params, afterId: page.afterId }, tx) : pageFromStart(params, tx);
      }
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
