import { and, eq, isNotNull, isNull, lt, sql, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '../../platform/db/client.js';
import { preparedQuery } from '../../platform/db/prepared.js';
import { users, type UserRow } from '../users/table.js';
import { credentials, refreshTokens, sessions, type RefreshTokenRow, type SessionRow } from './table.js';

type CredentialRow = typeof credentials.$inferSelect;

const tenant = sql.placeholder('tenantId');

export function createAuthRepo(db: DbOrTx) {
  // Prepared: the session check of bearer requests, and login's credential reads.
  const credentialOf = preparedQuery<Array<typeof credentials.$inferSelect>, { tenantId: string; userId: string }>(db, 'credentials_by_user', (q) =>
    q.select().from(credentials).where(and(eq(credentials.tenantId, tenant), eq(credentials.userId, sql.placeholder('userId')))).limit(1),
  );
  // Login: the user by email and its credential row, in one round trip.
  const loginByEmail = preparedQuery<Array<{ user: UserRow; credential: CredentialRow | null }>, { tenantId: string; email: string }>(
    db,
    'login_by_email',
    (q) =>
      q
        .select({ user: users, credential: credentials })
        .from(users)
        .leftJoin(credentials, and(eq(credentials.tenantId, users.tenantId), eq(credentials.userId, users.id)))
        .where(and(eq(users.tenantId, tenant), eq(users.email, sql.placeholder('email'))))
        .limit(1),
  );
  const sessionById = preparedQuery<SessionRow[], { tenantId: string; id: string }>(db, 'sessions_by_id', (q) =>
    q.select().from(sessions).where(and(eq(sessions.tenantId, tenant), eq(sessions.id, sql.placeholder('id')))).limit(1),
  );

  return {
    /** The user with this (normalized) email and its credential row, if any. */
    async findLogin(tenantId: string, email: string): Promise<{ user: UserRow; credential: CredentialRow | undefined } | undefined> {
      const [row] = await loginByEmail({ tenantId, email });
      return row ? { user: row.user, credential: row.credential ?? undefined } : undefined;
    },

    async findCredential(tenantId: string, userId: string, tx: DbOrTx = db) {
      const [row] = await credentialOf({ tenantId, userId }, tx);
      return row;
    },

    async upsertPassword(tenantId: string, userId: string, passwordHash: string, at: Date, tx: DbOrTx = db): Promise<void> {
      await tx
        .insert(credentials)
        .values({ tenantId, userId, passwordHash, passwordChangedAt: at })
        .onConflictDoUpdate({
          target: [credentials.tenantId, credentials.userId],
          set: { passwordHash, passwordChangedAt: at },
        });
    },

    async setTwoFactor(tenantId: string, userId: string, method: 'email' | null, at: Date | null, tx: DbOrTx = db): Promise<void> {
      await tx
        .insert(credentials)
        .values({ tenantId, userId, twoFactorMethod: method, twoFactorEnabledAt: at })
        .onConflictDoUpdate({
          target: [credentials.tenantId, credentials.userId],
          set: { twoFactorMethod: method, twoFactorEnabledAt: at },
        });
    },

    /** The inserts of a new session and its first refresh token, built but not run (writeTogether). */
    sessionStatements(session: typeof sessions.$inferInsert, token: typeof refreshTokens.$inferInsert): SQL[] {
      return [db.insert(sessions).values(session).getSQL(), db.insert(refreshTokens).values(token).getSQL()];
    },

    async findSession(tenantId: string, id: string, tx: DbOrTx = db): Promise<SessionRow | undefined> {
      const [row] = await sessionById({ tenantId, id }, tx);
      return row;
    },

    async revokeSession(tenantId: string, id: string, reason: string, at: Date, tx: DbOrTx = db): Promise<boolean> {
      const rows = await tx
        .update(sessions)
        .set({ revokedAt: at, revokeReason: reason })
        .where(and(eq(sessions.tenantId, tenantId), eq(sessions.id, id), isNull(sessions.revokedAt)))
        .returning({ id: sessions.id });
      return rows.length > 0;
    },

    /** Revokes every live session of a user; returns their ids. */
    async revokeUserSessions(tenantId: string, userId: string, reason: string, at: Date, tx: DbOrTx = db): Promise<string[]> {
      const rows = await tx
        .update(sessions)
        .set({ revokedAt: at, revokeReason: reason })
        .where(and(eq(sessions.tenantId, tenantId), eq(sessions.userId, userId), isNull(sessions.revokedAt)))
        .returning({ id: sessions.id });
      return rows.map((r) => r.id);
    },

    async insertRefreshToken(row: typeof refreshTokens.$inferInsert, tx: DbOrTx = db): Promise<void> {
      await tx.insert(refreshTokens).values(row);
    },

    /** The refresh token by hash, row-locked for the rest of the transaction. */
    async lockRefreshTokenByHash(tokenHash: string, tx: DbOrTx): Promise<RefreshTokenRow | undefined> {
      const [row] = await tx.select().from(refreshTokens).where(eq(refreshTokens.tokenHash, tokenHash)).limit(1).for('update');
      return row;
    },

    async markRefreshTokenUsed(tenantId: string, id: string, at: Date, successorSealed: string, tx: DbOrTx): Promise<void> {
      await tx
        .update(refreshTokens)
        .set({ usedAt: at, successorSealed })
        .where(and(eq(refreshTokens.tenantId, tenantId), eq(refreshTokens.id, id)));
    },

    /** Drops sealed successors older than the retry window in a session (they are only for retries). */
    async clearOldSuccessors(tenantId: string, sessionId: string, before: Date, tx: DbOrTx): Promise<void> {
      await tx
        .update(refreshTokens)
        .set({ successorSealed: null })
        .where(
          and(
            eq(refreshTokens.tenantId, tenantId),
            eq(refreshTokens.sessionId, sessionId),
            lt(refreshTokens.usedAt, before),
            // Only rows still holding one: rewriting every earlier row of a long-lived session
            // on each rotation made refresh cost grow with the session's age.
            isNotNull(refreshTokens.successorSealed),
          ),
        );
    },
  };
}

export type AuthRepo = ReturnType<typeof createAuthRepo>;
