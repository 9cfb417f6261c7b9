import type { Clock } from '../../platform/clock.js';
import { newId } from '../../platform/clock.js';
import type { SecretBox } from '../../platform/crypto/secrets.js';
import type { RunInTx } from '../../platform/db/tx.js';
import type { TenantContext } from '../../platform/http/guards.js';
import type { UsersService } from '../users/service.js';
import type { UserRow } from '../users/table.js';
import { AuthErrors } from './errors.js';
import type { AuthMailer } from './mailer.js';
import type { OneTimeService } from './one-time.js';
import { CODE_TTL_MS, FAILURE_WINDOW_MS, MAX_CODE_FAILURES } from './one-time.js';
import type { PasswordHasher } from './passwords.js';
import type { AuthRepo } from './repo.js';
import type { SecurityEventSink, SessionMeta, SessionService, TokenPair } from './sessions.js';
import type { TwoFactorMethod } from './table.js';
import { matchTotp, newRecoveryCodes, newTotpSecret, normalizeRecoveryCode, recoveryCodeHash, totpProvisioning } from './totp.js';

export const CHALLENGE_TTL_MS = 5 * 60_000;
/** Ten failed second-factor tries lock 2FA login for 15 minutes. */
export const SECOND_FACTOR_MAX_FAILURES = 10;
export const SECOND_FACTOR_LOCK_MS = 15 * 60_000;
const LOCK_PURPOSE = 'two_factor_login_lock';
/** Wrong codes while confirming a TOTP setup: the email setup code's limits (5 in 15 minutes). */
const TOTP_SETUP_PURPOSE = 'totp_setup';

export interface TwoFactorStatus {
  enabled: boolean;
  method: TwoFactorMethod | null;
  enabledAt: string | null;
  /** TOTP only: unused recovery codes. */
  recoveryCodesRemaining?: number;
}

export interface TotpSetup {
  message: string;
  method: 'totp';
  secret: string;
  otpauthUrl: string;
  qrCodeDataUrl: string;
}

const totpContext = (tenantId: string, userId: string) => `totp:${tenantId}:${userId}`;

/**
 * Two-factor authentication by email (the spec's) or by an authenticator app (TOTP, RFC 6238,
 * with ten single-use recovery codes). One method at a time: enabling one replaces the other.
 */
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
  secrets: SecretBox;
}) {
  const { tx, clock, users, repo, oneTime, mailer, passwords, sessions, record, secrets } = deps;

  async function requireUser(tenantId: string, userId: string): Promise<UserRow> {
    const user = await users.findRow(tenantId, userId);
    if (!user) throw AuthErrors.userNotFound();
    return user;
  }

  async function checkPassword(tenantId: string, userId: string, password: string | undefined): Promise<boolean> {
    const credential = await repo.findCredential(tenantId, userId);
    return credential?.passwordHash ? passwords.verify(credential.passwordHash, password ?? '') : passwords.verifyDummy(password ?? '');
  }

  /** Fresh recovery codes replace the old set, in the caller's transaction; the plain codes are returned once. */
  async function issueRecoveryCodes(db: Parameters<Parameters<RunInTx>[0]>[0], tenantId: string, userId: string): Promise<string[]> {
    const codes = newRecoveryCodes();
    await repo.replaceRecoveryCodes(tenantId, userId, codes.map((code) => ({ id: newId(), codeHash: recoveryCodeHash(tenantId, userId, code) })), clock.now(), db);
    return codes;
  }

  /** A wrong second factor at login: counted; the tenth in the window locks 2FA login. */
  async function secondFactorFailed(tenantId: string, userId: string, now: Date): Promise<never> {
    const failures = await oneTime.addFailure(tenantId, userId, LOCK_PURPOSE, SECOND_FACTOR_LOCK_MS);
    await record(undefined, tenantId, { type: 'login.second_factor_failed', userId, details: { failures } });
    if (failures >= SECOND_FACTOR_MAX_FAILURES) {
      await oneTime.lock(tenantId, userId, LOCK_PURPOSE, new Date(now.getTime() + SECOND_FACTOR_LOCK_MS));
      throw AuthErrors.twoFactorLocked(SECOND_FACTOR_LOCK_MS / 1000);
    }
    throw AuthErrors.invalidCode();
  }

  /**
   * The second login step of TOTP 2FA: a code of the app (a step later than the last used one)
   * or an unused recovery code. A recovery code is spent, audited and mailed with the session.
   */
  async function verifyTotp(
    tenant: TenantContext,
    credential: { totpSecretSealed: string | null; totpLastStep: number | null },
    challengeToken: string,
    userId: string,
    code: string,
    meta: SessionMeta,
    now: Date,
  ): Promise<TokenPair> {
    const user = await requireUser(tenant.id, userId);
    const recovery = /^\d{6}$/.test(code) ? undefined : normalizeRecoveryCode(code);
    const finish = (secondFactor: 'totp' | 'recovery_code', spend: (db: Parameters<Parameters<RunInTx>[0]>[0]) => Promise<boolean>) =>
      tx(async (db) => {
        if (!(await spend(db))) return undefined;
        const consumed = await oneTime.consumeToken(tenant.id, ['two_factor_challenge'], challengeToken, db);
        if (!consumed) throw AuthErrors.invalidChallenge();
        const alsoWrite = [record.statement(tenant.id, { type: 'login.succeeded', userId, details: { secondFactor } })];
        if (secondFactor === 'recovery_code') {
          const remaining = await repo.unusedRecoveryCodes(tenant.id, userId, db);
          alsoWrite.push(record.statement(tenant.id, { type: '2fa.recovery_code_used', userId, details: { remaining } }));
          await mailer.send(db, tenant.id, user.email, {
            title: 'A recovery code was used to sign in',
            intro: `One of your two-factor recovery codes was just used to sign in to your account. ${remaining} unused codes remain.`,
            outro: 'If this was not you, change your password and create new recovery codes now.',
          });
        }
        return sessions.start(tenant.id, user.id, user.role, meta, { db, alsoWrite });
      });
    let pair: TokenPair | undefined;
    if (recovery) {
      const hash = recoveryCodeHash(tenant.id, userId, recovery);
      pair = await finish('recovery_code', (db) => repo.useRecoveryCode(tenant.id, userId, hash, now, db));
    } else if (credential.totpSecretSealed) {
      const secret = await secrets.decrypt(credential.totpSecretSealed, totpContext(tenant.id, userId));
      const step = matchTotp(secret, code, now, credential.totpLastStep ?? null);
      // The step is claimed in the transaction: of two uses of one step, one wins.
      if (step !== null) pair = await finish('totp', (db) => repo.claimTotpStep(tenant.id, userId, step, db));
    }
    if (!pair) return secondFactorFailed(tenant.id, userId, now);
    await oneTime.resetFailures(tenant.id, userId, LOCK_PURPOSE);
    return pair;
  }

  return {
    async status(tenantId: string, userId: string): Promise<TwoFactorStatus> {
      const credential = await repo.findCredential(tenantId, userId);
      const method = credential?.twoFactorMethod ?? null;
      const status: TwoFactorStatus = { enabled: method !== null, method, enabledAt: credential?.twoFactorEnabledAt?.toISOString() ?? null };
      if (method === 'totp') status.recoveryCodesRemaining = await repo.unusedRecoveryCodes(tenantId, userId);
      return status;
    },

    /**
     * Starts a setup. Email: mails a setup code. TOTP: a new secret (sealed, pending until
     * enable confirms a code) with its otpauth URI and QR code. The method already on is a 409;
     * switching from the other one needs the account password. A new setup ends the other
     * method's setup in progress.
     */
    async setup(tenant: TenantContext, userId: string, method: TwoFactorMethod = 'email', password?: string): Promise<TotpSetup | undefined> {
      const user = await requireUser(tenant.id, userId);
      const credential = await repo.findCredential(tenant.id, userId);
      const active = credential?.twoFactorMethod ?? null;
      if (active === method) throw AuthErrors.twoFactorAlreadyEnabled();
      if (active !== null && !(await checkPassword(tenant.id, userId, password))) {
        await record(undefined, tenant.id, { type: '2fa.disable_failed', userId, details: { switchTo: method } });
        throw AuthErrors.wrongPassword();
      }
      if (method === 'email') {
        await tx(async (db) => {
          if (credential?.totpPendingSealed) await repo.setTotpPending(tenant.id, userId, null, null, db);
          await mailer.sendCode(db, tenant.id, user, 'two_factor_setup_code', {
            title: 'Your two-factor setup code',
            intro: 'Enter this code to turn on two-factor authentication by email. It is valid for 10 minutes.',
            outro: 'If you did not ask for this, change your password.',
          });
        });
        return undefined;
      }
      const secret = newTotpSecret();
      await tx(async (db) => {
        await oneTime.voidLive(db, tenant.id, userId, ['two_factor_setup_code']);
        await repo.setTotpPending(tenant.id, userId, secrets.encrypt(secret, totpContext(tenant.id, userId)), clock.now(), db);
      });
      const { otpauthUrl, qrCodeDataUrl } = await totpProvisioning(secret, tenant.name, user.email);
      return { message: 'Add the key to an authenticator app, then confirm with a code from it.', method: 'totp', secret, otpauthUrl, qrCodeDataUrl };
    },

    /**
     * Confirms a setup with its code. Without `method`: TOTP when a TOTP setup is in progress,
     * else email (the spec's). Enabling one method replaces the other; TOTP answers its ten
     * recovery codes, once.
     */
    async enable(tenantId: string, userId: string, code: string, method?: TwoFactorMethod): Promise<TwoFactorStatus & { recoveryCodes?: string[] }> {
      const credential = await repo.findCredential(tenantId, userId);
      const now = clock.now();
      const pendingLive = !!credential?.totpPendingSealed && !!credential.totpPendingAt && credential.totpPendingAt.getTime() + CODE_TTL_MS > now.getTime();
      const chosen = method ?? (pendingLive ? 'totp' : 'email');
      const replaced = credential?.twoFactorMethod ?? null;
      if (replaced === chosen) throw AuthErrors.twoFactorAlreadyEnabled();
      if (chosen === 'email') {
        const ok = await tx(async (db) => {
          const check = await oneTime.consumeCode(tenantId, userId, 'two_factor_setup_code', code, db);
          if (!check.ok) return false;
          await repo.setTwoFactor(tenantId, userId, 'email', clock.now(), db);
          if (replaced) await repo.replaceRecoveryCodes(tenantId, userId, [], now, db);
          await record(db, tenantId, { type: '2fa.enabled', userId, details: replaced ? { method: 'email', replaced } : { method: 'email' } });
          return true;
        });
        if (!ok) throw AuthErrors.invalidCode();
        return this.status(tenantId, userId);
      }
      const counter = await oneTime.failures(tenantId, userId, TOTP_SETUP_PURPOSE);
      if (counter?.lockedUntil && counter.lockedUntil > now) throw AuthErrors.invalidCode();
      const secret = pendingLive ? await secrets.decrypt(credential.totpPendingSealed!, totpContext(tenantId, userId)) : undefined;
      const step = secret ? matchTotp(secret, code, now, null) : null;
      if (step === null) {
        const failures = await oneTime.addFailure(tenantId, userId, TOTP_SETUP_PURPOSE, FAILURE_WINDOW_MS);
        if (failures >= MAX_CODE_FAILURES) {
          // As with a mailed setup code: the setup is void, and a new one waits for the window.
          await repo.setTotpPending(tenantId, userId, null, null);
          await oneTime.lock(tenantId, userId, TOTP_SETUP_PURPOSE, new Date(now.getTime() + FAILURE_WINDOW_MS));
        }
        throw AuthErrors.invalidCode();
      }
      const recoveryCodes = await tx(async (db) => {
        await repo.setTwoFactor(tenantId, userId, 'totp', now, db, { secretSealed: credential!.totpPendingSealed!, lastStep: step });
        await oneTime.voidLive(db, tenantId, userId, ['two_factor_setup_code']);
        const codes = await issueRecoveryCodes(db, tenantId, userId);
        await record(db, tenantId, { type: '2fa.enabled', userId, details: replaced ? { method: 'totp', replaced } : { method: 'totp' } });
        return codes;
      });
      await oneTime.resetFailures(tenantId, userId, TOTP_SETUP_PURPOSE);
      return { ...(await this.status(tenantId, userId)), recoveryCodes };
    },

    /** New recovery codes for TOTP 2FA (the old ones stop working); needs the account password. */
    async regenerateRecoveryCodes(tenantId: string, userId: string, password: string): Promise<{ recoveryCodes: string[] }> {
      const credential = await repo.findCredential(tenantId, userId);
      if (credential?.twoFactorMethod !== 'totp') throw AuthErrors.twoFactorNotEnabled();
      if (!(await checkPassword(tenantId, userId, password))) {
        await record(undefined, tenantId, { type: '2fa.disable_failed', userId, details: { action: 'recovery_codes' } });
        throw AuthErrors.wrongPassword();
      }
      const recoveryCodes = await tx(async (db) => {
        const codes = await issueRecoveryCodes(db, tenantId, userId);
        await record(db, tenantId, { type: '2fa.recovery_codes_regenerated', userId });
        return codes;
      });
      return { recoveryCodes };
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
        await repo.replaceRecoveryCodes(tenantId, userId, [], clock.now(), db);
        await record(db, tenantId, { type: '2fa.disabled', userId, details: { method: credential.twoFactorMethod } });
      });
      return this.status(tenantId, userId);
    },

    /** First login step with 2FA on: a single-use challenge token, and (email) a code by mail. */
    async startChallenge(tenant: TenantContext, user: UserRow): Promise<{ twoFactorRequired: true; challengeToken: string; method?: 'totp' }> {
      const credential = await repo.findCredential(tenant.id, user.id);
      if (credential?.twoFactorMethod === 'totp') {
        const token = await tx((db) => oneTime.issueToken(db, tenant.id, user.id, 'two_factor_challenge', CHALLENGE_TTL_MS));
        return { twoFactorRequired: true, challengeToken: token, method: 'totp' };
      }
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
      const credential = await repo.findCredential(tenant.id, userId);
      if (credential?.twoFactorMethod === 'totp') return verifyTotp(tenant, credential, challengeToken, userId, code, meta, now);
      const check = /^\d{6}$/.test(code) ? await oneTime.consumeCode(tenant.id, userId, 'two_factor_login_code', code) : { ok: false };
      if (!check.ok) return secondFactorFailed(tenant.id, userId, now);
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
