import type { Clock } from '../../platform/clock.js';
import type { DbOrTx } from '../../platform/db/client.js';
import type { RunInTx } from '../../platform/db/tx.js';
import type { Role } from '../../platform/http/guards.js';
import type { UsersService } from '../users/service.js';
import type { UserRow } from '../users/table.js';
import { AuthErrors } from './errors.js';
import { checkPasswordPolicy, type PasswordHasher } from './passwords.js';
import type { AuthRepo } from './repo.js';
import type { SecurityEventSink, SessionMeta, SessionService, TokenPair } from './sessions.js';

export interface RegisterInput {
  email: string;
  password: string;
  fullName?: string;
}

/** Called after a user registers, inside the same transaction (the verification mail). */
export type OnRegistered = (db: DbOrTx, tenantId: string, user: UserRow) => Promise<void>;

/** What login answers: a pair, or a second-factor challenge. */
export type LoginResult = TokenPair | { twoFactorRequired: true; challengeToken: string };

/** Issues the second-factor challenge for a user with 2FA on. */
export type SecondFactorStarter = (tenantId: string, user: UserRow) => Promise<{ twoFactorRequired: true; challengeToken: string }>;

export function createAuthService(deps: {
  repo: AuthRepo;
  tx: RunInTx;
  clock: Clock;
  users: UsersService;
  sessions: SessionService;
  passwords: PasswordHasher;
  record: SecurityEventSink;
  onRegistered?: OnRegistered;
  startSecondFactor?: SecondFactorStarter;
}) {
  const { repo, tx, clock, users, sessions, passwords, record } = deps;

  const roleOf = async (tenantId: string, userId: string, db?: DbOrTx): Promise<Role | undefined> =>
    (await users.findRow(tenantId, userId, db))?.role;

  return {
    async register(tenantId: string, input: RegisterInput): Promise<UserRow> {
      checkPasswordPolicy(input.password);
      const passwordHash = await passwords.hash(input.password);
      return tx(async (db) => {
        const user = await users.createUser(tenantId, { email: input.email, fullName: input.fullName }, db);
        await repo.upsertPassword(tenantId, user.id, passwordHash, clock.now(), db);
        await record(db, tenantId, { type: 'user.registered', userId: user.id });
        await deps.onRegistered?.(db, tenantId, user);
        return user;
      });
    },

    /**
     * Checks email and password. A wrong email and a wrong password give the same 401 after the
     * same work: an unknown account still pays for one argon2id verification.
     */
    async checkPassword(tenantId: string, email: string, password: string): Promise<UserRow> {
      const user = await users.findRowByEmail(tenantId, email);
      const credential = user ? await repo.findCredential(tenantId, user.id) : undefined;
      const ok = credential?.passwordHash
        ? await passwords.verify(credential.passwordHash, password)
        : await passwords.verifyDummy(password);
      if (!ok || !user) {
        await record(undefined, tenantId, { type: 'login.failed', userId: user?.id, details: { reason: 'bad_credentials' } });
        throw AuthErrors.invalidCredentials();
      }
      return user;
    },

    async login(tenantId: string, email: string, password: string, meta: SessionMeta): Promise<LoginResult> {
      const user = await this.checkPassword(tenantId, email, password);
      const credential = await repo.findCredential(tenantId, user.id);
      if (credential?.twoFactorMethod && deps.startSecondFactor) {
        await record(undefined, tenantId, { type: 'login.second_factor_required', userId: user.id });
        return deps.startSecondFactor(tenantId, user);
      }
      const pair = await sessions.start(tenantId, user.id, user.role, meta);
      await record(undefined, tenantId, { type: 'login.succeeded', userId: user.id });
      return pair;
    },

    async refresh(tenantId: string, refreshToken: string): Promise<TokenPair> {
      return sessions.refresh(tenantId, refreshToken, (userId, db) => roleOf(tenantId, userId, db));
    },

    async logout(tenantId: string, sessionId: string, userId: string): Promise<void> {
      await sessions.revoke(tenantId, sessionId, 'logout');
      await record(undefined, tenantId, { type: 'logout', userId, details: { sessionId } });
    },

    /** A pair for a user of the tenant, minted by the tenant's back end (API key). */
    async mintForUser(tenantId: string, userId: string, keyId: string, meta: SessionMeta): Promise<TokenPair> {
      const user = await users.findRow(tenantId, userId);
      if (!user) throw AuthErrors.userNotFound();
      const pair = await sessions.start(tenantId, user.id, user.role, meta);
      await record(undefined, tenantId, { type: 'token.minted', userId: user.id, details: { apiKeyId: keyId } });
      return pair;
    },

    /** Sets a new password (reset flow) and revokes every session of the user. */
    async setPassword(tenantId: string, userId: string, password: string, db: DbOrTx): Promise<void> {
      checkPasswordPolicy(password);
      const passwordHash = await passwords.hash(password);
      await repo.upsertPassword(tenantId, userId, passwordHash, clock.now(), db);
      await sessions.revokeAllForUser(tenantId, userId, 'password_changed', db);
      await record(db, tenantId, { type: 'password.changed', userId });
    },
  };
}

export type AuthService = ReturnType<typeof createAuthService>;
