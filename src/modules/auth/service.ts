import type { SQLWrapper } from 'drizzle-orm';
import type { DbOrTx } from '../../platform/db/client.js';
import type { RunInTx } from '../../platform/db/tx.js';
import type { Role, TenantContext } from '../../platform/http/guards.js';
import type { RateLimiter } from '../../platform/ratelimit/limiter.js';
import { rateLimitedError } from '../../platform/ratelimit/limiter.js';
import { normalizeEmail, type UsersService } from '../users/service.js';
import type { UserRow } from '../users/table.js';
import { AuthErrors } from './errors.js';
import { checkPasswordPolicy, type PasswordHasher } from './passwords.js';
import type { AuthRepo } from './repo.js';
import type { SecurityEventSink, SessionMeta, SessionService, SessionView, TokenPair } from './sessions.js';
import type { CallContext } from '../../platform/http/context.js';
import { ownedBy, subjectFor } from '../users/acting-for.js';

export const LOGIN_PER_IP = 30;
export const LOGIN_IP_WINDOW_MS = 60_000;
export const LOGIN_FAILURES_PER_ACCOUNT = 10;
export const LOGIN_ACCOUNT_WINDOW_MS = 15 * 60_000;

export interface RegisterInput {
  email: string;
  password: string;
  fullName?: string;
}

/**
 * What a registration writes beside the user (the verification mail: its code, token and
 * message), built but not run, to commit in the same statement; `sent` runs once it committed.
 */
export type RegistrationWrites = (db: DbOrTx, tenant: TenantContext, user: UserRow) => Promise<{ writes: SQLWrapper[]; sent(): Promise<void> } | undefined>;

/** What login answers: a pair, or a second-factor challenge. */
export type LoginResult = TokenPair | { twoFactorRequired: true; challengeToken: string };

/** Issues the second-factor challenge for a user with 2FA on. */
export type SecondFactorStarter = (tenantId: string, user: UserRow) => Promise<{ twoFactorRequired: true; challengeToken: string }>;

/** The caller as the auth security events name it. */
function securityActor(ctx: CallContext): { type: 'user' | 'api_key'; id: string } {
  return ctx.caller.kind === 'user' ? { type: 'user', id: ctx.caller.userId } : { type: 'api_key', id: ctx.caller.keyId };
}

export function createAuthService(deps: {
  db: DbOrTx;
  repo: AuthRepo;
  tx: RunInTx;
  users: UsersService;
  sessions: SessionService;
  passwords: PasswordHasher;
  limiter: RateLimiter;
  record: SecurityEventSink;
  onRegistered?: RegistrationWrites;
  startSecondFactor?: SecondFactorStarter;
}) {
  const { db, repo, tx, users, sessions, passwords, limiter, record } = deps;
  const userWithCredential = users.byEmailWith('users_by_email_with_credential', repo.credentialJoin.table, repo.credentialJoin.on);

  const roleOf = async (tenantId: string, userId: string, db?: DbOrTx): Promise<Role | undefined> =>
    (await users.findRow(tenantId, userId, db))?.role;

  /** The user and its credential row when email and password match; otherwise the 401, after the same work. */
  async function verifyCredentials(tenantId: string, email: string, password: string) {
    // One prepared read: the users module's row with this module's credential joined to it.
    const found = await userWithCredential(tenantId, email);
    const user = found?.user;
    const credential = found?.joined ?? undefined;
    const ok = credential?.passwordHash
      ? await passwords.verify(credential.passwordHash, password)
      : await passwords.verifyDummy(password);
    if (!ok || !user) {
      await record(undefined, tenantId, { type: 'login.failed', userId: user?.id, actor: { type: 'anonymous' }, details: { reason: 'bad_credentials' } });
      throw AuthErrors.invalidCredentials();
    }
    return { user, credential };
  }

  return {
    /**
     * Registers a user: the user, its `user.created` event, its credential, the
     * `user.registered` audit row and the verification mail (code, token, message) are one SQL
     * statement (writeTogether): they commit together, in one round trip, as login's writes do.
     * Returns the row as stored.
     */
    async register(tenant: TenantContext, input: RegisterInput): Promise<UserRow> {
      const tenantId = tenant.id;
      checkPasswordPolicy(input.password);
      const passwordHash = await passwords.hash(input.password);
      const user = users.newRow(tenantId, { email: input.email, fullName: input.fullName });
      const mail = await deps.onRegistered?.(db, tenant, user);
      await users.insertTogether(user, [
        repo.newPasswordStatement(tenantId, user.id, passwordHash, user.createdAt),
        record.statement(tenantId, { type: 'user.registered', userId: user.id }),
        ...(mail?.writes ?? []),
      ]);
      await mail?.sent();
      return user;
    },

    /**
     * Checks email and password. A wrong email and a wrong password give the same 401 after the
     * same work: an unknown account still pays for one argon2id verification.
     */
    async checkPassword(tenantId: string, email: string, password: string): Promise<UserRow> {
      return (await verifyCredentials(tenantId, email, password)).user;
    },

    /**
     * Login, throttled per account (10 attempts without a success in 15 minutes lock it for the
     * rest of the window), across instances when Redis is configured; the route declares its
     * limit per client address (30 a minute).
     */
    async login(tenantId: string, email: string, password: string, meta: SessionMeta): Promise<LoginResult> {
      // Counted before the password is checked, so concurrent guesses cannot all pass a check
      // made before any of them failed; a success clears the count.
      const accountKey = `login-account:${tenantId}:${normalizeEmail(email)}`;
      const account = await limiter.hit(accountKey, LOGIN_FAILURES_PER_ACCOUNT, LOGIN_ACCOUNT_WINDOW_MS);
      if (!account.allowed) throw rateLimitedError(account.retryAfterMs, 'Too many failed logins for this account; retry later');
      const { user, credential } = await verifyCredentials(tenantId, email, password);
      await limiter.reset(accountKey);
      if (credential?.twoFactorMethod && deps.startSecondFactor) {
        await record(undefined, tenantId, { type: 'login.second_factor_required', userId: user.id });
        return deps.startSecondFactor(tenantId, user);
      }
      // The session and its audit event commit together, in one statement.
      return sessions.start(tenantId, user.id, user.role, meta, {
        alsoWrite: [record.statement(tenantId, { type: 'login.succeeded', userId: user.id })],
      });
    },

    async refresh(tenantId: string, refreshToken: string): Promise<TokenPair> {
      return sessions.refresh(tenantId, refreshToken, (userId) => roleOf(tenantId, userId));
    },

    async logout(tenantId: string, sessionId: string, userId: string): Promise<void> {
      await sessions.revoke(tenantId, sessionId, 'logout');
      await record(undefined, tenantId, { type: 'session.revoked', userId, actor: { type: 'user', id: userId }, details: { sessionId, reason: 'logout' } });
    },

    /**
     * The live sessions of a user: the caller's own, or (admin, API key) any user's of the
     * tenant; another user's as a plain user is 404. The caller's session is `current`.
     */
    async listSessions(ctx: CallContext, userId: string | undefined): Promise<SessionView[]> {
      const subject = subjectFor(ctx, userId, AuthErrors.userIdRequired);
      if (!(await users.findRow(ctx.tenantId, subject))) throw AuthErrors.userNotFound();
      return sessions.list(ctx.tenantId, subject, ctx.caller.kind === 'user' ? ctx.caller.sessionId : undefined);
    },

    /**
     * Ends one session (its refresh token at once, its access tokens within the session cache's
     * window): the caller's own, or (admin, API key) any of the tenant's; another user's is 404.
     */
    async endSession(ctx: CallContext, sessionId: string): Promise<void> {
      const found = await repo.findSession(ctx.tenantId, sessionId);
      const session = ownedBy(ctx, found?.revokedAt ? undefined : found, AuthErrors.sessionNotFound);
      const subject = session.userId;
      const reason = ctx.userId === subject ? 'ended_by_user' : 'ended_by_admin';
      if (!(await sessions.revoke(ctx.tenantId, sessionId, reason))) throw AuthErrors.sessionNotFound();
      await record(undefined, ctx.tenantId, { type: 'session.revoked', userId: subject, actor: securityActor(ctx), details: { sessionId, reason } });
    },

    /** Ends every session of a user but the caller's own ("sign out everywhere"); returns how many. */
    async endOtherSessions(ctx: CallContext, userId: string | undefined): Promise<number> {
      const subject = subjectFor(ctx, userId, AuthErrors.userIdRequired);
      if (!(await users.findRow(ctx.tenantId, subject))) throw AuthErrors.userNotFound();
      const own = ctx.caller.kind === 'user' ? ctx.caller.sessionId : undefined;
      const reason = ctx.userId === subject ? 'signed_out_everywhere' : 'ended_by_admin';
      const ids = await tx(async (db) => {
        const revoked = await sessions.revokeAllForUser(ctx.tenantId, subject, reason, db, own);
        if (revoked.length > 0) {
          await record(db, ctx.tenantId, { type: 'session.revoked', userId: subject, actor: securityActor(ctx), details: { sessionIds: revoked, reason } });
        }
        return revoked;
      });
      sessions.forget(ctx.tenantId, ids);
      return ids.length;
    },

    /** A pair for a user of the tenant, minted by the tenant's back end (API key). */
    async mintForUser(tenantId: string, userId: string, keyId: string, meta: SessionMeta): Promise<TokenPair> {
      const user = await users.findRow(tenantId, userId);
      if (!user) throw AuthErrors.userNotFound();
      return sessions.start(tenantId, user.id, user.role, meta, {
        alsoWrite: [record.statement(tenantId, { type: 'token.minted', userId: user.id, actor: { type: 'api_key', id: keyId } })],
        actor: `api-key:${keyId}`,
      });
    },

  };
}

export type AuthService = ReturnType<typeof createAuthService>;
