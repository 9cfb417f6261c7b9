import type { Clock } from '../../platform/clock.js';
import type { AuditType } from '../../platform/audit/types.js';
import { newId } from '../../platform/clock.js';
import { randomToken, sha256Hex } from '../../platform/crypto/hash.js';
import type { SecretBox } from '../../platform/crypto/secrets.js';
import type { SQLWrapper } from 'drizzle-orm';
import type { DbOrTx } from '../../platform/db/client.js';
import { writeTogether } from '../../platform/db/write-together.js';
import type { RunInTx } from '../../platform/db/tx.js';
import type { AccessClaims, Role } from '../../platform/http/guards.js';
import { AuthErrors } from './errors.js';
import type { AuthRepo } from './repo.js';
import type { SessionRow } from './table.js';
import { ACCESS_TOKEN_TTL_SEC, type TokenService } from './tokens.js';

export const REFRESH_TOKEN_TTL_MS = 7 * 24 * 3600_000;
export const REFRESH_RETRY_WINDOW_MS = 10_000;
/** How long an instance trusts a live session without reading it again (revocations elsewhere apply within it). */
export const SESSION_CACHE_TTL_MS = 5_000;

export interface TokenPair {
  accessToken: string;
  refreshToken: string;
  tokenType: 'Bearer';
  expiresIn: number;
  accessTokenExpiresAt: string;
  refreshTokenExpiresAt: string;
}

export interface SessionMeta {
  ip?: string;
  userAgent?: string;
}

/** A session as its user (or an admin, or the API key) sees it. */
export interface SessionView {
  id: string;
  userAgent: string | null;
  ip: string | null;
  createdAt: string;
  /** When the session last got a token pair (its start, or its last refresh). */
  lastUsedAt: string;
  /** True for the session of the calling bearer token. */
  current: boolean;
  /** `api-key:<keyId>` when the tenant's back end minted it; null for the user's own login. */
  startedBy: string | null;
}

/** A security event of the auth flows. */
export interface SecurityEvent {
  type: AuditType;
  /** The user the event is about. */
  userId?: string;
  /** Who acted; by default the user themself when known, otherwise anonymous. */
  actor?: { type: 'user' | 'api_key' | 'system' | 'anonymous'; id?: string };
  details?: Record<string, unknown>;
}

/** Something that records security events (the audit module). */
export interface SecurityEventSink {
  /** Records the event in `db` (a transaction, so it commits with its change) or on its own. */
  (db: DbOrTx | undefined, tenantId: string, event: SecurityEvent): Promise<void>;
  /** The event as a write not yet run, to commit in one statement with its change (writeTogether). */
  statement(tenantId: string, event: SecurityEvent): SQLWrapper;
}

/** Where sessions.start writes, and what it writes with the session. */
export interface StartOptions {
  /** An open transaction to write in; by default the writes form one statement of their own. */
  db?: DbOrTx;
  /** Further writes that commit with the session (its audit event), in the same statement. */
  alsoWrite?: SQLWrapper[];
  /** Who obtains the session for the user (`api-key:<keyId>`): the tokens' `act.sub`, kept on the session for its refreshes. */
  actor?: string;
}

/**
 * Sessions and token pairs: an access token bound to a session, and a refresh token rotated
 * on every use. A retry of a used refresh token inside the retry window returns the same new
 * pair; a reuse after it revokes the whole session (family).
 */
export function createSessionService(deps: {
  db: DbOrTx;
  repo: AuthRepo;
  tx: RunInTx;
  tokens: TokenService;
  secrets: SecretBox;
  clock: Clock;
  record: SecurityEventSink;
}) {
  const { db, repo, tx, tokens, secrets, clock, record } = deps;
  const active = new Map<string, { ok: boolean; until: number }>();

  /** A new pair of a session: the refresh token's row (to insert) and the pair (to answer). */
  async function mintPair(tenantId: string, sessionId: string, userId: string, role: Role, actor?: string | null) {
    const now = clock.now();
    const refreshToken = randomToken(32);
    const refreshExpires = new Date(now.getTime() + REFRESH_TOKEN_TTL_MS);
    const row = { tenantId, id: newId(), sessionId, tokenHash: sha256Hex(refreshToken), createdAt: now, expiresAt: refreshExpires };
    const access = await tokens.sign({ sub: userId, tid: tenantId, sid: sessionId, role, ...(actor ? { act: { sub: actor } } : {}) });
    const pair: TokenPair = {
      accessToken: access.token,
      refreshToken,
      tokenType: 'Bearer',
      expiresIn: ACCESS_TOKEN_TTL_SEC,
      accessTokenExpiresAt: access.expiresAt.toISOString(),
      refreshTokenExpiresAt: refreshExpires.toISOString(),
    };
    return { row, pair };
  }

  /** A used token presented after the retry window: the whole session (family) is revoked. */
  async function revokeForReuse(tenantId: string, session: SessionRow, usedAt: Date, now: Date): Promise<void> {
    await tx(async (db) => {
      if (!(await repo.revokeSession(tenantId, session.id, 'refresh_token_reuse', now, db))) return;
      await record(db, tenantId, {
        type: 'refresh.reused',
        userId: session.userId,
        details: { sessionId: session.id, usedAt: usedAt.toISOString(), sessionRevoked: true },
      });
    });
    active.set(`${tenantId}:${session.id}`, { ok: false, until: Number.POSITIVE_INFINITY });
    tokens.forgetSession(session.id);
  }

  return {
    /**
     * Opens a session and returns its first pair. The session, its first refresh token and
     * `alsoWrite` are one SQL statement: they commit together, in one round trip.
     */
    async start(tenantId: string, userId: string, role: Role, meta: SessionMeta = {}, options: StartOptions = {}): Promise<TokenPair> {
      const sessionId = newId();
      const { row, pair } = await mintPair(tenantId, sessionId, userId, role, options.actor);
      const session = {
        tenantId,
        id: sessionId,
        userId,
        createdAt: row.createdAt,
        ip: meta.ip ?? null,
        userAgent: meta.userAgent?.slice(0, 256) ?? null,
        actor: options.actor ?? null,
      };
      await writeTogether(options.db ?? db, [...repo.sessionStatements(session, row), ...(options.alsoWrite ?? [])]);
      return pair;
    },

    /**
     * Rotates a refresh token: read it with its session, then claim it and write its successor
     * in one statement (repo.rotateRefreshToken), with no transaction held across the signing.
     * A concurrent rotation that loses the claim reads the token again and answers the
     * winner's pair as a retry does.
     */
    async refresh(tenantId: string, rawToken: string, roleOf: (userId: string) => Promise<Role | undefined>): Promise<TokenPair> {
      const tokenHash = sha256Hex(rawToken);
      for (let attempt = 0; attempt < 2; attempt++) {
        const found = await repo.findRefreshToken(tenantId, tokenHash);
        const now = clock.now();
        if (!found) break;
        const { token, session } = found;
        if (!session || session.revokedAt || token.expiresAt.getTime() <= now.getTime()) break;
        if (token.usedAt) {
          const age = now.getTime() - token.usedAt.getTime();
          if (age <= REFRESH_RETRY_WINDOW_MS && token.successorSealed) {
            return JSON.parse(await secrets.decrypt(token.successorSealed, `refresh-retry:${token.id}`)) as TokenPair;
          }
          await revokeForReuse(tenantId, session, token.usedAt, now);
          break;
        }
        const role = await roleOf(session.userId);
        if (!role) break;
        const { row: next, pair } = await mintPair(tenantId, session.id, session.userId, role, session.actor);
        const claimed = await repo.rotateRefreshToken({
          tenantId,
          id: token.id,
          sessionId: session.id,
          at: now,
          successorSealed: secrets.encrypt(JSON.stringify(pair), `refresh-retry:${token.id}`),
          next,
          clearBefore: new Date(now.getTime() - REFRESH_RETRY_WINDOW_MS),
        });
        if (claimed) return pair;
      }
      throw AuthErrors.invalidRefreshToken();
    },

    /** Revokes a session; false when it was revoked already (or does not exist). */
    async revoke(tenantId: string, sessionId: string, reason: string): Promise<boolean> {
      const done = await repo.revokeSession(tenantId, sessionId, reason, clock.now());
      active.set(`${tenantId}:${sessionId}`, { ok: false, until: Number.POSITIVE_INFINITY });
      tokens.forgetSession(sessionId);
      return done;
    },

    /**
     * Revokes every session of a user in `db` (but `except`, the caller's own) and returns their
     * ids; their refresh and access tokens stop working. Inside a transaction, call forget()
     * with them after it commits, so a rollback leaves no stale "revoked" in the cache.
     */
    async revokeAllForUser(tenantId: string, userId: string, reason: string, db?: DbOrTx, except?: string): Promise<string[]> {
      const ids = await repo.revokeUserSessions(tenantId, userId, reason, clock.now(), db, except);
      if (!db) this.forget(tenantId, ids);
      return ids;
    },

    /** The user's live sessions (not revoked, refresh token not expired), newest first. */
    async list(tenantId: string, userId: string, currentSessionId?: string): Promise<SessionView[]> {
      const now = clock.now().getTime();
      const rows = await repo.listUserSessions(tenantId, userId, 200);
      return rows
        .filter((r) => r.refreshExpiresAt !== null && r.refreshExpiresAt.getTime() > now)
        .slice(0, 100)
        .map((r) => ({
          id: r.id,
          userAgent: r.userAgent,
          ip: r.ip,
          createdAt: r.createdAt.toISOString(),
          lastUsedAt: (r.lastUsedAt ?? r.createdAt).toISOString(),
          current: r.id === currentSessionId,
          startedBy: r.actor,
        }));
    },

    /** Drops cached verifications of revoked sessions on this instance. */
    forget(tenantId: string, sessionIds: string[]): void {
      for (const id of sessionIds) {
        active.set(`${tenantId}:${id}`, { ok: false, until: Number.POSITIVE_INFINITY });
        tokens.forgetSession(id);
      }
    },

    /**
     * The claims of a valid access token whose session is live. Session state is cached for
     * SESSION_CACHE_TTL_MS (5 s); a revocation on this instance takes effect at once, on others
     * within those 5 seconds.
     */
    async verifyAccessToken(token: string): Promise<AccessClaims | undefined> {
      const claims = await tokens.verify(token);
      if (!claims) return undefined;
      const key = `${claims.tid}:${claims.sid}`;
      const now = clock.now().getTime();
      const cached = active.get(key);
      if (cached && cached.until > now) return cached.ok ? claims : undefined;
      const session = await repo.findSession(claims.tid, claims.sid);
      const ok = Boolean(session && !session.revokedAt && session.userId === claims.sub);
      if (active.size > 50_000) active.clear();
      active.set(key, { ok, until: ok ? now + SESSION_CACHE_TTL_MS : Number.POSITIVE_INFINITY });
      return ok ? claims : undefined;
    },
  };
}

export type SessionService = ReturnType<typeof createSessionService>;
