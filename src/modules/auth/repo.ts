import { and, count, desc, eq, isNull, lt, ne, or, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../platform/db/client.js';
import { preparedQuery, preparedSql } from '../../platform/db/prepared.js';
import { rowInsertTemplate, writeTemplate, type TemplateWrite } from '../../platform/db/write-together.js';
import type { UserKeyColumns } from '../users/service.js';
import { credentials, recoveryCodes, refreshTokens, sessions, type RefreshTokenRow, type SessionRow, type TwoFactorMethod } from './table.js';

const tenant = sql.placeholder('tenantId');

const insertSession = rowInsertTemplate(sessions);
const insertRefreshToken = rowInsertTemplate(refreshTokens);
/** A new user's password: the credential's other columns (the second factor) start empty. */
const insertCredential = writeTemplate<'tenantId' | 'userId' | 'passwordHash' | 'passwordChangedAt'>((db, value) =>
  db.insert(credentials).values({ tenantId: value('tenantId'), userId: value('userId'), passwordHash: value('passwordHash'), passwordChangedAt: value('passwordChangedAt') }),
);

/** rotateRefreshToken's statement, prepared (every refresh runs it). */
const rotateStatement = preparedSql<{
  tenantId: string;
  id: string;
  sessionId: string;
  at: string;
  successorSealed: string;
  nextId: string;
  nextHash: string;
  nextCreatedAt: string;
  nextExpiresAt: string;
  clearBefore: string;
}>('refresh_tokens_rotate', () => {
  const t = refreshTokens;
  const col = (c: { name: string }) => sql.identifier(c.name);
  const p = (name: string) => sql.placeholder(name);
  return sql`
    WITH claimed AS (
      UPDATE ${t} SET ${col(t.usedAt)} = ${p('at')}::timestamptz, ${col(t.successorSealed)} = ${p('successorSealed')}
      WHERE ${t.tenantId} = ${p('tenantId')}::uuid AND ${t.id} = ${p('id')}::uuid AND ${t.usedAt} IS NULL
      RETURNING 1
    ), successor AS (
      INSERT INTO ${t} (${col(t.tenantId)}, ${col(t.id)}, ${col(t.sessionId)}, ${col(t.tokenHash)}, ${col(t.createdAt)}, ${col(t.expiresAt)})
      SELECT ${p('tenantId')}::uuid, ${p('nextId')}::uuid, ${p('sessionId')}::uuid, ${p('nextHash')}, ${p('nextCreatedAt')}::timestamptz, ${p('nextExpiresAt')}::timestamptz
      FROM claimed
    ), cleared AS (
      -- Only rows still holding one: rewriting every earlier row of a long-lived session
      -- on each rotation made refresh cost grow with the session's age.
      UPDATE ${t} SET ${col(t.successorSealed)} = NULL
      WHERE ${t.tenantId} = ${p('tenantId')}::uuid AND ${t.sessionId} = ${p('sessionId')}::uuid
        AND ${t.usedAt} < ${p('clearBefore')}::timestamptz AND ${t.successorSealed} IS NOT NULL
        AND EXISTS (SELECT 1 FROM claimed)
    )
    SELECT count(*)::int AS claimed FROM claimed`;
});

export function createAuthRepo(db: DbOrTx) {
  // Prepared: the session check of bearer requests, and login's credential reads.
  const credentialOf = preparedQuery<Array<typeof credentials.$inferSelect>, { tenantId: string; userId: string }>(db, 'credentials_by_user', (q) =>
    q.select().from(credentials).where(and(eq(credentials.tenantId, tenant), eq(credentials.userId, sql.placeholder('userId')))).limit(1),
  );
  const sessionById = preparedQuery<SessionRow[], { tenantId: string; id: string }>(db, 'sessions_by_id', (q) =>
    q.select().from(sessions).where(and(eq(sessions.tenantId, tenant), eq(sessions.id, sql.placeholder('id')))).limit(1),
  );

  // Refresh: the token by hash with its session, in one round trip.
  const refreshByHash = preparedQuery<Array<{ token: RefreshTokenRow; session: SessionRow | null }>, { tenantId: string; tokenHash: string }>(
    db,
    'refresh_tokens_by_hash',
    (q) =>
      q
        .select({ token: refreshTokens, session: sessions })
        .from(refreshTokens)
        .leftJoin(sessions, and(eq(sessions.tenantId, refreshTokens.tenantId), eq(sessions.id, refreshTokens.sessionId)))
        .where(and(eq(refreshTokens.tokenHash, sql.placeholder('tokenHash')), eq(refreshTokens.tenantId, tenant)))
        .limit(1),
  );

  return {
    /** The credentials table and its join to a user's row (login's one read, by the users module's byEmailWith). */
    credentialJoin: {
      table: credentials,
      on: (user: UserKeyColumns) => and(eq(credentials.tenantId, user.tenantId), eq(credentials.userId, user.id))!,
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

    /** The credential row of a user created in the same statement, not yet run (sign-up's writeTogether). */
    newPasswordStatement(tenantId: string, userId: string, passwordHash: string, at: Date): TemplateWrite {
      return insertCredential(db, { tenantId, userId, passwordHash, passwordChangedAt: at });
    },

    /**
     * Sets the active second factor. Anything but TOTP drops the TOTP secret, a pending setup
     * and the last step (one method at a time); TOTP takes the confirmed secret and its step.
     */
    async setTwoFactor(
      tenantId: string,
      userId: string,
      method: TwoFactorMethod | null,
      at: Date | null,
      tx: DbOrTx = db,
      totp?: { secretSealed: string; lastStep: number },
    ): Promise<void> {
      const set = {
        twoFactorMethod: method,
        twoFactorEnabledAt: at,
        totpSecretSealed: method === 'totp' ? (totp?.secretSealed ?? null) : null,
        totpLastStep: method === 'totp' ? (totp?.lastStep ?? null) : null,
        totpPendingSealed: null,
        totpPendingAt: null,
      };
      await tx
        .insert(credentials)
        .values({ tenantId, userId, ...set })
        .onConflictDoUpdate({ target: [credentials.tenantId, credentials.userId], set });
    },

    /** A TOTP setup in progress (or none): its sealed secret and when it started. */
    async setTotpPending(tenantId: string, userId: string, sealed: string | null, at: Date | null, tx: DbOrTx = db): Promise<void> {
      await tx
        .insert(credentials)
        .values({ tenantId, userId, totpPendingSealed: sealed, totpPendingAt: at })
        .onConflictDoUpdate({ target: [credentials.tenantId, credentials.userId], set: { totpPendingSealed: sealed, totpPendingAt: at } });
    },

    /** Records a used TOTP step only if it is later than the last one: false for a replay, or a concurrent use of the same step. */
    async claimTotpStep(tenantId: string, userId: string, step: number, tx: DbOrTx = db): Promise<boolean> {
      const rows = await tx
        .update(credentials)
        .set({ totpLastStep: step })
        .where(
          and(
            eq(credentials.tenantId, tenantId),
            eq(credentials.userId, userId),
            eq(credentials.twoFactorMethod, 'totp'),
            or(isNull(credentials.totpLastStep), lt(credentials.totpLastStep, step)),
          ),
        )
        .returning({ userId: credentials.userId });
      return rows.length > 0;
    },

    /** Replaces a user's recovery codes with these hashes (none: deletes them). */
    async replaceRecoveryCodes(tenantId: string, userId: string, rows: Array<{ id: string; codeHash: string }>, at: Date, tx: DbOrTx = db): Promise<void> {
      await tx.delete(recoveryCodes).where(and(eq(recoveryCodes.tenantId, tenantId), eq(recoveryCodes.userId, userId)));
      if (rows.length > 0) await tx.insert(recoveryCodes).values(rows.map((r) => ({ tenantId, userId, id: r.id, codeHash: r.codeHash, createdAt: at })));
    },

    /** Marks an unused recovery code of the user used; false when there is none with this hash (or it was used). */
    async useRecoveryCode(tenantId: string, userId: string, codeHash: string, at: Date, tx: DbOrTx = db): Promise<boolean> {
      const rows = await tx
        .update(recoveryCodes)
        .set({ usedAt: at })
        .where(and(eq(recoveryCodes.tenantId, tenantId), eq(recoveryCodes.userId, userId), eq(recoveryCodes.codeHash, codeHash), isNull(recoveryCodes.usedAt)))
        .returning({ id: recoveryCodes.id });
      return rows.length > 0;
    },

    async unusedRecoveryCodes(tenantId: string, userId: string, tx: DbOrTx = db): Promise<number> {
      const [row] = await tx
        .select({ n: count() })
        .from(recoveryCodes)
        .where(and(eq(recoveryCodes.tenantId, tenantId), eq(recoveryCodes.userId, userId), isNull(recoveryCodes.usedAt)));
      return Number(row?.n ?? 0);
    },

    /** The inserts of a new session and its first refresh token, not yet run (writeTogether). */
    sessionStatements(session: typeof sessions.$inferInsert, token: typeof refreshTokens.$inferInsert): TemplateWrite[] {
      return [
        insertSession(db, { revokedAt: null, revokeReason: null, ip: null, userAgent: null, actor: null, ...session }),
        insertRefreshToken(db, { usedAt: null, successorSealed: null, ...token }),
      ];
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

    /** Revokes every live session of a user, but `except` (the caller's own); returns their ids. */
    async revokeUserSessions(tenantId: string, userId: string, reason: string, at: Date, tx: DbOrTx = db, except?: string): Promise<string[]> {
      const rows = await tx
        .update(sessions)
        .set({ revokedAt: at, revokeReason: reason })
        .where(and(eq(sessions.tenantId, tenantId), eq(sessions.userId, userId), isNull(sessions.revokedAt), except ? ne(sessions.id, except) : undefined))
        .returning({ id: sessions.id });
      return rows.map((r) => r.id);
    },

    /**
     * A user's sessions not revoked, newest first (at most `limit`), each with the time it last
     * got a token pair (its start or its last refresh) and when its newest refresh token expires.
     */
    async listUserSessions(tenantId: string, userId: string, limit: number): Promise<Array<SessionRow & { lastUsedAt: Date | null; refreshExpiresAt: Date | null }>> {
      // The outer columns spelled out: drizzle writes columns unqualified in a one-table select.
      const ofSession = sql.raw('rt.tenant_id = "sessions"."tenant_id" and rt.session_id = "sessions"."id"');
      const lastUsed = sql<Date | null>`(select max(rt.created_at) from ${refreshTokens} rt where ${ofSession})`.mapWith(refreshTokens.createdAt);
      const expires = sql<Date | null>`(select max(rt.expires_at) from ${refreshTokens} rt where ${ofSession})`.mapWith(refreshTokens.expiresAt);
      const rows = await db
        .select({ session: sessions, lastUsedAt: lastUsed, refreshExpiresAt: expires })
        .from(sessions)
        .where(and(eq(sessions.tenantId, tenantId), eq(sessions.userId, userId), isNull(sessions.revokedAt)))
        .orderBy(desc(sessions.createdAt), desc(sessions.id))
        .limit(limit);
      return rows.map((r) => ({ ...r.session, lastUsedAt: r.lastUsedAt ?? null, refreshExpiresAt: r.refreshExpiresAt ?? null }));
    },

    /** A refresh token of the tenant by hash, with its session (null when the session row is gone). */
    async findRefreshToken(tenantId: string, tokenHash: string): Promise<{ token: RefreshTokenRow; session: SessionRow | null } | undefined> {
      const [row] = await refreshByHash({ tenantId, tokenHash });
      return row;
    },

    /**
     * Rotates a refresh token in one statement: marks it used (keeping the sealed successor
     * pair for retries) only if it is still unused, inserts its successor only if that claim
     * succeeded, and drops sealed successors of the session older than `clearBefore`. Of
     * concurrent rotations of one token exactly one claims it (the others' UPDATE re-checks
     * `used_at IS NULL` after the winner commits). Returns whether this call claimed it.
     */
    async rotateRefreshToken(r: {
      tenantId: string;
      id: string;
      sessionId: string;
      at: Date;
      successorSealed: string;
      next: { id: string; tokenHash: string; createdAt: Date; expiresAt: Date };
      clearBefore: Date;
    }): Promise<boolean> {
      const { rows } = await rotateStatement(
        {
          tenantId: r.tenantId,
          id: r.id,
          sessionId: r.sessionId,
          at: r.at.toISOString(),
          successorSealed: r.successorSealed,
          nextId: r.next.id,
          nextHash: r.next.tokenHash,
          nextCreatedAt: r.next.createdAt.toISOString(),
          nextExpiresAt: r.next.expiresAt.toISOString(),
          clearBefore: r.clearBefore.toISOString(),
        },
        db,
      );
      return Number(rows[0]?.claimed ?? 0) > 0;
    },
  };
}

export type AuthRepo = ReturnType<typeof createAuthRepo>;
