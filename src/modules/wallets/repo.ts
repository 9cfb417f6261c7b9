import { and, asc, count, eq, getTableColumns, gt, isNull, lt, sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import { columnsWithTotal } from '../../platform/db/counted-page.js';
import type { DbOrTx } from '../../platform/db/client.js';
import { preparedQuery } from '../../platform/db/prepared.js';
import { rowInsertTemplate, writeTemplate, writeTogether } from '../../platform/db/write-together.js';
import type { PageParams } from '../../platform/http/pagination.js';
import { evmSiweNonces, wallets, type SiweNonceRow, type WalletChain, type WalletKind, type WalletRow } from './table.js';

export interface WalletFilters {
  kind?: WalletKind;
  chain?: WalletChain;
}

function userConditions(tenantId: string, userId: string, filters: WalletFilters): SQL[] {
  const conditions = [eq(wallets.tenantId, tenantId), eq(wallets.userId, userId)];
  if (filters.kind) conditions.push(eq(wallets.kind, filters.kind));
  if (filters.chain) conditions.push(eq(wallets.chain, filters.chain));
  return conditions;
}

/** The wallet row's keys (drizzle's names of its columns). */
const WALLET_KEYS = Object.keys(getTableColumns(wallets));

/** A wallet as a list shows it (toWalletDto's fields). */
const LISTED_COLUMNS = (({ id, userId, kind, chain, network, address, vaultId, details, createdAt, updatedAt }) => ({ id, userId, kind, chain, network, address, vaultId, details, createdAt, updatedAt }))(
  getTableColumns(wallets),
);
export type ListedWallet = Pick<WalletRow, keyof typeof LISTED_COLUMNS>;

const insertNonceRow = rowInsertTemplate(evmSiweNonces);
const deleteExpiredNonces = writeTemplate<'tenantId' | 'userId' | 'expiredBefore'>((db, value) =>
  db
    .delete(evmSiweNonces)
    .where(and(eq(evmSiweNonces.tenantId, value('tenantId')), eq(evmSiweNonces.userId, value('userId')), lt(evmSiweNonces.expiresAt, sql.param(value('expiredBefore'), evmSiweNonces.expiresAt)))),
);

/** Whether a user exists, as SQL (the users module's userExistsSql). */
export type UserExistsSql = (tenantId: SQLWrapper, id: SQLWrapper) => SQL<boolean>;

export function createWalletsRepo(db: DbOrTx, userExists: UserExistsSql) {
  // A user's wallets, an offset page with its total (GET /evm-eoas, GET /non-custodian-xrpl/wallets):
  // one prepared statement per shape of filters (kind, chain, both or neither).
  // Only the columns a wallet's DTO shows: a list never needs the sealed key or the provider's reference.
  type UserPageParams = { tenantId: string; userId: string; kind?: WalletKind; chain?: WalletChain; limit: number; offset: number };
  // The page is left-joined to one row saying whether the user exists, so an empty page still
  // answers that (pageActingFor's 404) in the same statement: `(select exists(...)) f LEFT JOIN
  // (page) p ON true`, ordered again by id outside (a join keeps no order of its own).
  type UserPageRow = { userFound: boolean } & { [K in keyof ListedWallet]: ListedWallet[K] | null } & { total: number | null };
  const userPages = new Map<string, (params: UserPageParams, tx?: DbOrTx) => Promise<UserPageRow[]>>();
  const userPage = (shape: string, filters: WalletFilters) =>
    preparedQuery<UserPageRow[], UserPageParams>(db, `wallets_user_page_with_user_${shape || 'all'}`, (q) => {
      const tenant = sql.placeholder('tenantId');
      const user = sql.placeholder('userId');
      const conditions = [eq(wallets.tenantId, tenant), eq(wallets.userId, user)];
      if (filters.kind) conditions.push(eq(wallets.kind, sql.placeholder('kind')));
      if (filters.chain) conditions.push(eq(wallets.chain, sql.placeholder('chain')));
      const { total } = columnsWithTotal(wallets);
      const page = q
        .select({ ...LISTED_COLUMNS, total })
        .from(wallets)
        .where(and(...conditions))
        .orderBy(asc(wallets.id))
        .limit(sql.placeholder('limit'))
        .offset(sql.placeholder('offset'))
        .as('p');
      const fields = Object.fromEntries(Object.keys(LISTED_COLUMNS).map((key) => [key, page[key as keyof typeof LISTED_COLUMNS]]));
      return q
        .select({ userFound: sql<boolean>`f.found`.as('user_found'), ...fields, total: page.total })
        .from(sql`(select ${userExists(tenant, user)} as found) f`)
        .leftJoin(page, sql`true`)
        .orderBy(page.id) as never;
    });
  // Read by every SIWE registration, as a prepared statement.
  const byIdQuery = (q: DbOrTx) =>
    q
      .select()
      .from(wallets)
      .where(and(eq(wallets.tenantId, sql.placeholder('tenantId')), eq(wallets.id, sql.placeholder('id'))))
      .limit(1);
  const byId = preparedQuery<WalletRow[], { tenantId: string; id: string }>(db, 'wallets_by_id', byIdQuery);
  const byIdLocked = preparedQuery<WalletRow[], { tenantId: string; id: string }>(db, 'wallets_by_id_for_update', (q) => byIdQuery(q).for('update'));
  // Every registration's insert of its wallet, as a prepared statement (every column a placeholder).
  const insertWallet = preparedQuery<WalletRow[], Record<string, unknown>>(db, 'wallets_insert_if_absent', (q) =>
    q
      .insert(wallets)
      .values(Object.fromEntries(WALLET_KEYS.map((key) => [key, sql.placeholder(key)])) as unknown as typeof wallets.$inferInsert)
      .onConflictDoNothing({ target: [wallets.tenantId, wallets.chain, wallets.network, wallets.addressKey] })
      .returning(),
  );
  // Every registration's consume of its nonce, as a prepared statement.
  const consume = preparedQuery<Array<{ nonceHash: string }>, { tenantId: string; nonceHash: string; userId: string; now: string }>(db, 'evm_siwe_nonce_consume', (q) =>
    q
      .update(evmSiweNonces)
      .set({ consumedAt: sql`${sql.placeholder('now')}::timestamptz` })
      .where(
        and(
          eq(evmSiweNonces.tenantId, sql.placeholder('tenantId')),
          eq(evmSiweNonces.nonceHash, sql.placeholder('nonceHash')),
          eq(evmSiweNonces.userId, sql.placeholder('userId')),
          isNull(evmSiweNonces.consumedAt),
          gt(evmSiweNonces.expiresAt, sql`${sql.placeholder('now')}::timestamptz`),
        ),
      )
      .returning({ nonceHash: evmSiweNonces.nonceHash }),
  );
  const nonceByHash = preparedQuery<SiweNonceRow[], { tenantId: string; nonceHash: string }>(db, 'evm_siwe_nonce_by_hash', (q) =>
    q
      .select()
      .from(evmSiweNonces)
      .where(and(eq(evmSiweNonces.tenantId, sql.placeholder('tenantId')), eq(evmSiweNonces.nonceHash, sql.placeholder('nonceHash'))))
      .limit(1),
  );
  return {
    /** Inserts unless the address is registered already (any user): undefined then. */
    async insertIfAbsent(tenantId: string, row: Omit<WalletRow, 'tenantId'>, tx: DbOrTx = db): Promise<WalletRow | undefined> {
      const values: Record<string, unknown> = { ...row, tenantId };
      const [created] = await insertWallet(Object.fromEntries(WALLET_KEYS.map((key) => [key, values[key] ?? null])), tx);
      return created;
    },

    /** The wallet; `lock` holds the row until the transaction `tx` ends. */
    async findById(tenantId: string, id: string, tx: DbOrTx = db, lock = false): Promise<WalletRow | undefined> {
      const [row] = await (lock ? byIdLocked : byId)({ tenantId, id }, tx);
      return row;
    },

    /** Replaces the wallet's details (the caller merges); answers the row, undefined when it is gone. */
    async updateDetails(tenantId: string, id: string, details: Record<string, unknown>, updatedAt: Date, tx: DbOrTx = db): Promise<WalletRow | undefined> {
      const [row] = await tx
        .update(wallets)
        .set({ details, updatedAt })
        .where(and(eq(wallets.tenantId, tenantId), eq(wallets.id, id)))
        .returning();
      return row;
    },

    async findByAddress(tenantId: string, chain: WalletChain, network: string, addressKey: string, tx: DbOrTx = db): Promise<WalletRow | undefined> {
      const [row] = await tx
        .select()
        .from(wallets)
        .where(and(eq(wallets.tenantId, tenantId), eq(wallets.chain, chain), eq(wallets.network, network), eq(wallets.addressKey, addressKey)))
        .limit(1);
      return row;
    },

    async countByUser(tenantId: string, userId: string, filters: WalletFilters, tx: DbOrTx = db): Promise<number> {
      const [row] = await tx
        .select({ n: count() })
        .from(wallets)
        .where(and(...userConditions(tenantId, userId, filters)));
      return Number(row?.n ?? 0);
    },

    /** Oldest first (ids are time ordered). */
    async listByUser(tenantId: string, userId: string, filters: WalletFilters, page: PageParams, tx: DbOrTx = db): Promise<WalletRow[]> {
      const conditions = userConditions(tenantId, userId, filters);
      if (page.afterId) conditions.push(gt(wallets.id, page.afterId));
      return tx
        .select()
        .from(wallets)
        .where(and(...conditions))
        .orderBy(asc(wallets.id))
        .limit(page.limit)
        .offset(page.offset);
    },

    /** An offset page of listByUser, each row with the total of the user's matching wallets (counted-page.ts). */
    /** A user's offset page of wallets with their total, and whether the user exists, in one prepared statement. */
    async pageByUser(tenantId: string, userId: string, filters: WalletFilters, page: PageParams, tx: DbOrTx = db): Promise<{ rows: Array<ListedWallet & { total: number }>; userFound: boolean }> {
      const shape = `${filters.kind ? 'k' : ''}${filters.chain ? 'c' : ''}`;
      let query = userPages.get(shape);
      if (!query) userPages.set(shape, (query = userPage(shape, filters)));
      const read = await query({ tenantId, userId, kind: filters.kind, chain: filters.chain, limit: page.limit, offset: page.offset }, tx);
      // An empty page is the one row of the left join with no wallet in it.
      const rows = read[0]?.id === null ? [] : (read as Array<ListedWallet & { total: number }>);
      return { rows, userFound: read[0]?.userFound === true };
    },

    /**
     * Stores a new nonce and deletes the user's nonces that expired before `expiredBefore` (kept a
     * while so a late replay still gets its own code), in one statement (the new nonce is not among them).
     */
    async insertNonce(tenantId: string, row: Omit<SiweNonceRow, 'tenantId'>, expiredBefore: Date, tx: DbOrTx = db): Promise<void> {
      await writeTogether(tx, [deleteExpiredNonces(tx, { tenantId, userId: row.userId, expiredBefore }), insertNonceRow(tx, { ...row, tenantId })]);
    },

    async findNonce(tenantId: string, nonceHash: string, tx: DbOrTx = db): Promise<SiweNonceRow | undefined> {
      const [row] = await nonceByHash({ tenantId, nonceHash }, tx);
      return row;
    },

    /**
     * Consumes a nonce in one statement: only an unused, unexpired nonce of this user is
     * claimed, so of two concurrent uses exactly one wins. False when it was not claimed.
     */
    async consumeNonce(tenantId: string, nonceHash: string, userId: string, now: Date, tx: DbOrTx = db): Promise<boolean> {
      const rows = await consume({ tenantId, nonceHash, userId, now: now.toISOString() }, tx);
      return rows.length === 1;
    },
  };
}

export type WalletsRepo = ReturnType<typeof createWalletsRepo>;
