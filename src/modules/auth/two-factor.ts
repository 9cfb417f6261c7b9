import type { Clock } from '../../platform/clock.js';
import type { RunInTx } from '../../platform/db/tx.js';
import type { TenantContext } from '../../platform/http/guards.js';
import type { UsersService } from '../users/service.js';
import type { UserRow } from '../users/table.js';
import { AuthErrors } from './errors.js';
import type { AuthMailer } from './mailer.js';
import type { OneTimeService } from './one-time.js';
import type { PasswordHasher } from './passwords.js';
import type { AuthRepo } from './repo.js';
import type { SecurityEventSink, SessionMeta, SessionService, TokenPair } from './sessions.js';

export const CHALLENGE_TTL_MS = 5 * 60_000;
/** Ten failed second-factor tries lock 2FA login for 15 minutes. */
export const SECOND_FACTOR_MAX_FAILURES = 10;
export const SECOND_FACTOR_LOCK_MS = 15 * 60_000;
const LOCK_PURPOSE = 'two_factor_login_lock';

export interface TwoFactorStatus {
  enabled: boolean;
  method: 'email' | null;
  enabledAt: string | null;
}

/** Two-factor authentication by email: one method at a time. */
export function createTwoFactorService(deps: {
  tx: RunInTx;
  clock: Clock;
  users: UsersService;
  repo: AuthRepo;
  oneTime: OneTimeService;
  mailer: AuthMailer;
  passwords: PasswordHasher;
  sessions: SessionService;
  record: SecurityEventSink;
}) {
  const { tx, clock, users, repo, oneTime, mailer, passwords, sessions, record } = deps;

  async function requireUser(tenantId: string, userId: string): Promise<UserRow> {
    const user = await users.findRow(tenantId, userId);
    if (!user) throw AuthErrors.userNotFound();
    return user;
  }

  return {
    async status(tenantId: string, userId: string): Promise<TwoFactorStatus> {
      const credential = await repo.findCredential(tenantId, userId);
      const method = credential?.twoFactorMethod ?? null;
      return { enabled: method !== null, method, enabledAt: credential?.twoFactorEnabledAt?.toISOString() ?? null };
    },

    /** Mails a setup code; enabling needs it. One method at a time: 409 when one is on. */
    async setup(tenant: TenantContext, userId: string): Promise<void> {
      const user = await requireUser(tenant.id, userId);
      const credential = await repo.findCredential(tenant.id, userId);
      if (credential?.twoFactorMethod) throw AuthErrors.twoFactorAlreadyEnabled();
      await tx((db) =>
        mailer.sendCode(db, tenant.id, user, 'two_factor_setup_code', {
          title: 'Your two-factor setup code',
          intro: 'Enter this code to turn on two-factor authentication by email. It is valid for 10 minutes.',
          outro: 'If you did not ask for this, change your password.',
        }),
      );
    },

    async enable(tenantId: string, userId: string, code: string): Promise<TwoFactorStatus> {
      const credential = await repo.findCredential(tenantId, userId);
      if (credential?.twoFactorMethod) throw AuthErrors.twoFactorAlreadyEnabled();
      const ok = await tx(async (db) => {
        const check = await oneTime.consumeCode(tenantId, userId, 'two_factor_setup_code', code, db);
        if (!check.ok) return false;
        await repo.setTwoFactor(tenantId, userId, 'email', clock.now(), db);
        await record(db, tenantId, { type: '2fa.enabled', userId, details: { method: 'email' } });
        return true;
      });
      if (!ok) throw AuthErrors.invalidCode();
      return this.status(tenantId, userId);
    },

    async disable(tenantId: string, userId: string, password: string): Promise<TwoFactorStatus> {
      const credential = await repo.findCredential(tenantId, userId);
      if (!credential?.twoFactorMethod) throw AuthErrors.twoFactorNotEnabled();
      const ok = credential.passwordHash ? await passwords.verify(credential.passwordHash, password) : await passwords.verifyDummy(password);
      if (!ok) {
        await record(undefined, tenantId, { type: '2fa.disable_failed', userId });
        throw AuthErrors.wrongPassword();
      }
      await tx(async (db) => {
        await repo.setTwoFactor(tenantId, userId, null, null, db);
        await record(db, tenantId, { type: '2fa.disabled', userId });
      });
      return this.status(tenantId, userId);
    },

    /** First login step with 2FA on: a single-use challenge token, and a code by mail. */
    async startChallenge(tenant: TenantContext, user: UserRow): Promise<{ twoFactorRequired: true; challengeToken: string }> {
      const challengeToken = await tx(async (db) => {
        const token = await oneTime.issueToken(db, tenant.id, user.id, 'two_factor_challenge', CHALLENGE_TTL_MS);
        await mailer.sendCode(db, tenant.id, user, 'two_factor_login_code', {
          title: 'Your sign-in code',
          intro: 'Enter this code to finish signing in. It is valid for 10 minutes.',
          outro: 'If this was not you, change your password: someone knows it.',
        });
        return token;
      });
      return { twoFactorRequired: true, challengeToken };
    },

    /** Second login step: the challenge token and the mailed code give the pair. */
    async verify(tenant: TenantContext, challengeToken: string, code: string, meta: SessionMeta): Promise<TokenPair> {
      const challenge = await oneTime.peekToken(tenant.id, 'two_factor_challenge', challengeToken);
      if (!challenge) throw AuthErrors.invalidChallenge();
      const userId = challenge.userId;
      const now = clock.now();
      const lock = await oneTime.failures(tenant.id, userId, LOCK_PURPOSE);
      if (lock?.lockedUntil && lock.lockedUntil > now) {
        throw AuthErrors.twoFactorLocked(Math.ceil((lock.lockedUntil.getTime() - now.getTime()) / 1000));
      }
      const check = await oneTime.consumeCode(tenant.id, userId, 'two_factor_login_code', code);
      if (!check.ok) {
        const failures = await oneTime.addFailure(tenant.id, userId, LOCK_PURPOSE, SECOND_FACTOR_LOCK_MS);
        await record(undefined, tenant.id, { type: 'login.second_factor_failed', userId, details: { failures } });
        if (failures >= SECOND_FACTOR_MAX_FAILURES) {
          await oneTime.lock(tenant.id, userId, LOCK_PURPOSE, new Date(now.getTime() + SECOND_FACTOR_LOCK_MS));
          throw AuthErrors.twoFactorLocked(SECOND_FACTOR_LOCK_MS / 1000);
        }
        throw AuthErrors.invalidCode();
      }
      const user = await requireUser(tenant.id, userId);
      const pair = await tx(async (db) => {
        const consumed = await oneTime.consumeToken(tenant.id, ['two_factor_challenge'], challengeToken, db);
        if (!consumed) throw AuthErrors.invalidChallenge();
        return sessions.start(tenant.id, user.id, user.role, meta, {
          db,
          alsoWrite: [record.statement(tenant.id, { type: 'login.succeeded', userId, details: { secondFactor: 'email' } })],
        });
      });
      await oneTime.resetFailures(tenant.id, userId, LOCK_PURPOSE);
      return pair;
    },
  };
}

export type TwoFactorService = ReturnType<typeof createTwoFactorService>;
