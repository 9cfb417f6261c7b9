import type { Clock } from '../../platform/clock.js';
import { newId } from '../../platform/clock.js';
import { randomDigits, randomToken, sha256Hex } from '../../platform/crypto/hash.js';
import type { DbOrTx } from '../../platform/db/client.js';
import type { TemplateWrite } from '../../platform/db/write-together.js';
import type { OneTimeRepo } from './one-time-repo.js';
import type { OneTimePurpose, OneTimeSecretRow } from './table.js';

export const CODE_TTL_MS = 10 * 60_000;
export const MAX_CODE_FAILURES = 5;
/** Wrong tries are counted per account and purpose over this window; asking for a new code does not reset them. */
export const FAILURE_WINDOW_MS = 15 * 60_000;

/** Codes are hashed with their owner and purpose, so equal codes of two users never collide. */
function codeHash(tenantId: string, userId: string, purpose: OneTimePurpose, code: string): string {
  return sha256Hex(`code:${tenantId}:${userId}:${purpose}:${code}`);
}

const tokenHash = (token: string) => sha256Hex(`token:${token}`);

export type CodeCheck = { ok: true; row: OneTimeSecretRow } | { ok: false; reason: 'invalid' | 'locked'; retryAfterMs?: number };

/**
 * Single-use codes (6 digits, CSPRNG) and tokens (32 random bytes), stored as hashes, with an
 * expiry. Codes allow MAX_CODE_FAILURES wrong tries per account and purpose, then every live
 * code of that purpose is void until the window ends.
 */
export function createOneTimeService(deps: { repo: OneTimeRepo; clock: Clock }) {
  const { repo, clock } = deps;

  const codeRow = (tenantId: string, userId: string, purpose: OneTimePurpose, code: string, data?: Record<string, unknown>) => {
    const now = clock.now();
    return { tenantId, id: newId(), userId, purpose, secretHash: codeHash(tenantId, userId, purpose, code), createdAt: now, expiresAt: new Date(now.getTime() + CODE_TTL_MS), data };
  };
  const tokenRow = (tenantId: string, userId: string, purpose: OneTimePurpose, token: string, ttlMs: number, data?: Record<string, unknown>) => {
    const now = clock.now();
    return { tenantId, id: newId(), userId, purpose, secretHash: tokenHash(token), createdAt: now, expiresAt: new Date(now.getTime() + ttlMs), data };
  };

  return {
    async issueCode(db: DbOrTx, tenantId: string, userId: string, purpose: OneTimePurpose, data?: Record<string, unknown>): Promise<string> {
      await repo.voidLive(tenantId, userId, purpose, db);
      const code = randomDigits(6);
      await repo.insert(codeRow(tenantId, userId, purpose, code, data), db);
      return code;
    },

    async issueToken(db: DbOrTx, tenantId: string, userId: string, purpose: OneTimePurpose, ttlMs: number, data?: Record<string, unknown>): Promise<string> {
      const token = randomToken(32);
      await repo.insert(tokenRow(tenantId, userId, purpose, token, ttlMs, data), db);
      return token;
    },

    /**
     * A code of a user who has no secrets yet (created in the same statement), its insert built
     * but not run (writeTogether): with nothing live to void, issueCode's first write is skipped.
     */
    newUserCode(db: DbOrTx, tenantId: string, userId: string, purpose: OneTimePurpose): { code: string; statement: TemplateWrite } {
      const code = randomDigits(6);
      return { code, statement: repo.insertStatement(codeRow(tenantId, userId, purpose, code), db) };
    },

    /** A token as issueToken makes it, its insert built but not run (writeTogether). */
    tokenStatement(db: DbOrTx, tenantId: string, userId: string, purpose: OneTimePurpose, ttlMs: number): { token: string; statement: TemplateWrite } {
      const token = randomToken(32);
      return { token, statement: repo.insertStatement(tokenRow(tenantId, userId, purpose, token, ttlMs), db) };
    },

    /** Voids every live secret of these purposes of a user (a newer request, a reset). */
    voidLive: (db: DbOrTx, tenantId: string, userId: string, purposes: OneTimePurpose[]) => repo.voidLive(tenantId, userId, purposes, db),

    /**
     * Checks and consumes a code. A wrong code counts against the account and purpose; the
     * fifth wrong try voids the live codes, and further tries are refused until the window ends.
     */
    async consumeCode(tenantId: string, userId: string, purpose: OneTimePurpose, code: string, db?: DbOrTx): Promise<CodeCheck> {
      const now = clock.now();
      const counter = await repo.counter(tenantId, userId, purpose, db);
      if (counter?.lockedUntil && counter.lockedUntil > now) {
        return { ok: false, reason: 'locked', retryAfterMs: counter.lockedUntil.getTime() - now.getTime() };
      }
      const row = /^\d{6}$/.test(code) ? await repo.findLive(tenantId, purpose, codeHash(tenantId, userId, purpose, code), now, db) : undefined;
      if (row && row.userId === userId && (await repo.consume(tenantId, row.id, now, db))) {
        await repo.resetCounter(tenantId, userId, purpose, db);
        return { ok: true, row };
      }
      const failures = await repo.addFailure(tenantId, userId, purpose, now, FAILURE_WINDOW_MS, db);
      if (failures >= MAX_CODE_FAILURES) {
        await repo.voidLive(tenantId, userId, purpose, db);
        const until = new Date(now.getTime() + FAILURE_WINDOW_MS);
        await repo.lock(tenantId, userId, purpose, until, db);
      }
      return { ok: false, reason: 'invalid' };
    },

    /** The live token's row without consuming it (token-status). */
    async peekToken(tenantId: string, purpose: OneTimePurpose, token: string): Promise<OneTimeSecretRow | undefined> {
      return repo.findLive(tenantId, purpose, tokenHash(token), clock.now());
    },

    /** Consumes a live token; undefined when unknown, expired, void or already used. */
    async consumeToken(tenantId: string, purposes: OneTimePurpose[], token: string, db?: DbOrTx): Promise<OneTimeSecretRow | undefined> {
      const now = clock.now();
      for (const purpose of purposes) {
        const row = await repo.findLive(tenantId, purpose, tokenHash(token), now, db);
        if (row && (await repo.consume(tenantId, row.id, now, db))) return row;
      }
      return undefined;
    },

    /** Counts a failure of something other than a code (second-factor login), with its own lock. */
    async failures(tenantId: string, userId: string, purpose: string) {
      return repo.counter(tenantId, userId, purpose);
    },
    addFailure: (tenantId: string, userId: string, purpose: string, windowMs: number) =>
      repo.addFailure(tenantId, userId, purpose, clock.now(), windowMs),
    lock: (tenantId: string, userId: string, purpose: string, until: Date) => repo.lock(tenantId, userId, purpose, until),
    resetFailures: (tenantId: string, userId: string, purpose: string) => repo.resetCounter(tenantId, userId, purpose),
  };
}

export type OneTimeService = ReturnType<typeof createOneTimeService>;
