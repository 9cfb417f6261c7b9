import type { Clock } from '../../platform/clock.js';
import type { DbOrTx } from '../../platform/db/client.js';
import type { RunInTx } from '../../platform/db/tx.js';
import type { TenantContext } from '../../platform/http/guards.js';
import type { UsersService } from '../users/service.js';
import { AuthErrors } from './errors.js';
import type { AuthMailer } from './mailer.js';
import type { OneTimeService } from './one-time.js';
import { checkPasswordPolicy, type PasswordHasher } from './passwords.js';
import type { AuthRepo } from './repo.js';
import type { SecurityEventSink, SessionService } from './sessions.js';
import type { OneTimePurpose } from './table.js';

export const RESET_TOKEN_TTL_MS = 30 * 60_000;
/** The token POST /auth/forgot-password/verify-otp hands out: short-lived. */
export const OTP_RESET_TOKEN_TTL_MS = 10 * 60_000;
/** Every secret that can set an account's password: the links' tokens (and those a code buys) and the codes. */
export const RESET_SECRETS: OneTimePurpose[] = ['password_reset_token', 'password_reset_code'];

/**
 * Password reset: a mailed link with a single-use token (30 minutes), or a mailed code that
 * buys a short-lived reset token. Only the newest request's secret works: a new link or code
 * voids every earlier reset token and code of the account. Setting the password (the one
 * place a password changes, setPassword) voids every reset secret left and revokes every
 * session. Users created without a password set their first one the same way.
 */
export function createRecoveryService(deps: {
  tx: RunInTx;
  clock: Clock;
  users: UsersService;
  oneTime: OneTimeService;
  mailer: AuthMailer;
  passwords: PasswordHasher;
  repo: AuthRepo;
  sessions: SessionService;
  record: SecurityEventSink;
}) {
  const { tx, clock, users, oneTime, mailer, passwords, repo, sessions, record } = deps;

  /**
   * Sets a user's password in `db`: voids every reset token and code still live, revokes every
   * session (all refresh families; none is the caller's, a reset is unauthenticated) and records
   * the change. Returns the revoked session ids, to forget() after the commit.
   */
  async function setPassword(db: DbOrTx, tenantId: string, userId: string, passwordHash: string, via: string): Promise<string[]> {
    await repo.upsertPassword(tenantId, userId, passwordHash, clock.now(), db);
    await oneTime.voidLive(db, tenantId, userId, RESET_SECRETS);
    const ids = await sessions.revokeAllForUser(tenantId, userId, via === 'reset' ? 'password_reset' : 'password_changed', db);
    await record(db, tenantId, { type: 'password.changed', userId, details: { via } });
    return ids;
  }

  return {
    setPassword,

    async sendLink(tenant: TenantContext, email: string): Promise<void> {
      const user = await users.findRowByEmail(tenant.id, email);
      if (!user || !(await mailer.allow(tenant.id, user.email, 'reset'))) return;
      await tx(async (db) => {
        await oneTime.voidLive(db, tenant.id, user.id, RESET_SECRETS);
        const token = await oneTime.issueToken(db, tenant.id, user.id, 'password_reset_token', RESET_TOKEN_TTL_MS);
        await mailer.send(db, tenant.id, user.email, {
          title: 'Reset your password',
          intro: 'Open the link below to choose a new password. It is valid for 30 minutes and works once.',
          link: { url: mailer.link(tenant, 'reset-password', token), label: 'Choose a new password' },
          outro: 'If you did not ask for this, ignore this message: your password stays as it is.',
        });
      });
    },

    async sendCode(tenant: TenantContext, email: string): Promise<void> {
      const user = await users.findRowByEmail(tenant.id, email);
      if (!user || !(await mailer.allow(tenant.id, user.email, 'reset'))) return;
      await tx(async (db) => {
        await oneTime.voidLive(db, tenant.id, user.id, RESET_SECRETS);
        await mailer.sendCode(db, tenant.id, user, 'password_reset_code', {
          title: 'Your password reset code',
          intro: 'Enter this code to reset your password. It is valid for 10 minutes.',
          outro: 'If you did not ask for this, ignore this message: your password stays as it is.',
        });
      });
    },

    async exchangeCode(tenant: TenantContext, email: string, code: string): Promise<string> {
      const user = await users.findRowByEmail(tenant.id, email);
      if (!user) throw AuthErrors.invalidCode();
      const token = await tx(async (db) => {
        const check = await oneTime.consumeCode(tenant.id, user.id, 'password_reset_code', code, db);
        return check.ok ? oneTime.issueToken(db, tenant.id, user.id, 'password_reset_token', OTP_RESET_TOKEN_TTL_MS, { via: 'code' }) : undefined;
      });
      if (!token) throw AuthErrors.invalidCode();
      return token;
    },

    async tokenIsValid(tenant: TenantContext, token: string): Promise<true> {
      if (!(await oneTime.peekToken(tenant.id, 'password_reset_token', token))) throw AuthErrors.invalidToken();
      return true;
    },

    async reset(tenant: TenantContext, token: string, password: string): Promise<void> {
      checkPasswordPolicy(password);
      if (!(await oneTime.peekToken(tenant.id, 'password_reset_token', token))) throw AuthErrors.invalidToken();
      const passwordHash = await passwords.hash(password);
      const revoked = await tx(async (db) => {
        const row = await oneTime.consumeToken(tenant.id, ['password_reset_token'], token, db);
        if (!row) throw AuthErrors.invalidToken();
        // The reset proved control of the mailbox.
        const user = await users.findRow(tenant.id, row.userId, db);
        if (user) await users.markEmailVerified(tenant.id, user, db);
        return setPassword(db, tenant.id, row.userId, passwordHash, 'reset');
      });
      sessions.forget(tenant.id, revoked);
    },
  };
}

export type RecoveryService = ReturnType<typeof createRecoveryService>;
