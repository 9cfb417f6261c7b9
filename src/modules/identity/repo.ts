import { and, desc, eq, sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import type { DbOrTx } from '../../platform/db/client.js';
import { preparedQuery, preparedSql } from '../../platform/db/prepared.js';
import { rowInsertTemplate } from '../../platform/db/write-together.js';
import { identityRoots, identitySalts, type IdentityRootRow } from './table.js';

/**
 * A source's read of a user, as a scalar subquery: `tenantId` and `userId` are placeholders (the
 * statement that joins every source's read is built once).
 */
export type SourceRead = (tenantId: SQLWrapper, userId: SQLWrapper) => SQL;

/** A new version's row: its text built once (a version's insert carries its tree, written on every identity change). */
const insertRoot = rowInsertTemplate(identityRoots);

export function createIdentityRepo(db: DbOrTx, sources: readonly SourceRead[] = []) {
  const ofUser = and(eq(identityRoots.tenantId, sql.placeholder('tenantId')), eq(identityRoots.userId, sql.placeholder('userId')));
  // The reads of every proof and root request, as prepared statements.
  const head = preparedQuery<Array<{ version: number; sourcesVerified: boolean }>, { tenantId: string; userId: string }>(db, 'identity_roots_head', (q) =>
    q
      .select({ version: identityRoots.version, sourcesVerified: identityRoots.sourcesVerified })
      .from(identityRoots)
      .where(ofUser)
      .orderBy(desc(identityRoots.version))
      .limit(1),
  );
  const latestRow = preparedQuery<IdentityRootRow[], { tenantId: string; userId: string }>(db, 'identity_roots_latest', (q) =>
    q.select().from(identityRoots).where(ofUser).orderBy(desc(identityRoots.version)).limit(1),
  );

  // The user's root lock, and the read under it: the salts, the latest version and what each
  // source answers, as prepared statements (built once; PostgreSQL plans them once per connection).
  const lockStatement = preparedSql<{ key: string }>('identity_lock_user', () => sql`select pg_advisory_xact_lock(hashtextextended(${sql.placeholder('key')}, 0))`);
  const snapshotStatement = preparedSql<{ tenantId: string; userId: string }>('identity_snapshot', () => {
    const tenantId = sql.placeholder('tenantId');
    const userId = sql.placeholder('userId');
    const reads = sources.map((read, i) => sql`${read(tenantId, userId)} as ${sql.raw(`s${i}`)}`);
    return sql`select
        (select coalesce(json_object_agg(s.path, s.salt), '{}'::json) from ${identitySalts} s where s.tenant_id = ${tenantId} and s.user_id = ${userId}) as salts,
        (select json_build_object('version', r.version, 'root', r.root, 'entries', r.entries, 'tree', r.tree, 'createdAt', r.created_at, 'sourcesVerified', r.sources_verified)
           from ${identityRoots} r where r.tenant_id = ${tenantId} and r.user_id = ${userId} order by r.version desc limit 1) as latest${reads.length > 0 ? sql`, ${sql.join(reads, sql`, `)}` : sql``}`;
  });

  return {
    /** Serialises recomputations of one user's root until the transaction ends. */
    async lockUser(tenantId: string, userId: string, tx: DbOrTx = db): Promise<void> {
      await lockStatement({ key: `identity:${tenantId}:${userId}` }, tx);
    },

    /**
     * The user's salts, latest version and what each source given at construction answers
     * (`reads`, in their order), in one read: recompute's, under the user's lock (a statement of its own after the lock's, so it
     * sees what the lock's holder before committed).
     */
    async saltsAndLatest(tenantId: string, userId: string, tx: DbOrTx = db): Promise<{ salts: Map<string, string>; latest: IdentityRootRow | undefined; reads: unknown[] }> {
      const result = await snapshotStatement({ tenantId, userId }, tx);
      type Latest = Omit<IdentityRootRow, 'tenantId' | 'userId' | 'createdAt'> & { createdAt: string };
      const row = result.rows[0] as ({ salts: Record<string, string>; latest: Latest | null } & Record<string, unknown>) | undefined;
      const latest = row?.latest ? { ...row.latest, tenantId, userId, createdAt: new Date(row.latest.createdAt) } : undefined;
      return { salts: new Map(Object.entries(row?.salts ?? {})), latest, reads: sources.map((_, i) => row?.[`s${i}`] ?? null) };
    },

    /** New salts and a new version, as writes not yet run (for writeTogether). */
    newVersionStatements(tenantId: string, salts: Array<{ path: string; salt: string }>, root: Omit<IdentityRootRow, 'tenantId'>, tx: DbOrTx = db): SQLWrapper[] {
      const writes: SQLWrapper[] = [];
      if (salts.length > 0) {
        writes.push(tx.insert(identitySalts).values(salts.map((s) => ({ tenantId, userId: root.userId, path: s.path, salt: s.salt, createdAt: root.createdAt }))).onConflictDoNothing());
      }
      writes.push(insertRoot(tx, { ...root, tenantId }));
      return writes;
    },

    async latest(tenantId: string, userId: string, tx: DbOrTx = db): Promise<IdentityRootRow | undefined> {
      const [row] = await latestRow({ tenantId, userId }, tx);
      return row;
    },

    /** The latest version's number and whether it is known current (no JSON read): what a cached proof is keyed by. */
    async latestHead(tenantId: string, userId: string, tx: DbOrTx = db): Promise<{ version: number; sourcesVerified: boolean } | undefined> {
      const [row] = await head({ tenantId, userId }, tx);
      return row;
    },

    /** Marks a stored version as found equal to the sources. */
    async markVerified(tenantId: string, userId: string, version: number, tx: DbOrTx = db): Promise<void> {
      await tx
        .update(identityRoots)
        .set({ sourcesVerified: true })
        .where(and(eq(identityRoots.tenantId, tenantId), eq(identityRoots.userId, userId), eq(identityRoots.version, version)));
    },

    /** Earlier roots, newest first (root and time only). */
    async history(tenantId: string, userId: string, limit: number, tx: DbOrTx = db) {
      return tx
        .select({ version: identityRoots.version, root: identityRoots.root, createdAt: identityRoots.createdAt })
        .from(identityRoots)
        .where(and(eq(identityRoots.tenantId, tenantId), eq(identityRoots.userId, userId)))
        .orderBy(desc(identityRoots.version))
        .limit(limit);
    },
  };
}

export type IdentityRepo = ReturnType<typeof createIdentityRepo>;
