import { and, desc, eq, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../platform/db/client.js';
import { preparedQuery } from '../../platform/db/prepared.js';
import { identityRoots, identitySalts, type IdentityRootRow } from './table.js';

export function createIdentityRepo(db: DbOrTx) {
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

  return {
    /** Serialises recomputations of one user's root until the transaction ends. */
    async lockUser(tenantId: string, userId: string, tx: DbOrTx = db): Promise<void> {
      await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`identity:${tenantId}:${userId}`}, 0))`);
    },

    async salts(tenantId: string, userId: string, tx: DbOrTx = db): Promise<Map<string, string>> {
      const rows = await tx
        .select({ path: identitySalts.path, salt: identitySalts.salt })
        .from(identitySalts)
        .where(and(eq(identitySalts.tenantId, tenantId), eq(identitySalts.userId, userId)));
      return new Map(rows.map((r) => [r.path, r.salt]));
    },

    async insertSalts(tenantId: string, userId: string, salts: Array<{ path: string; salt: string }>, at: Date, tx: DbOrTx = db): Promise<void> {
      if (salts.length === 0) return;
      await tx
        .insert(identitySalts)
        .values(salts.map((s) => ({ tenantId, userId, path: s.path, salt: s.salt, createdAt: at })))
        .onConflictDoNothing();
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

    async insertRoot(tenantId: string, row: Omit<IdentityRootRow, 'tenantId'>, tx: DbOrTx = db): Promise<IdentityRootRow> {
      const [created] = await tx
        .insert(identityRoots)
        .values({ ...row, tenantId })
        .returning();
      return created!;
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
