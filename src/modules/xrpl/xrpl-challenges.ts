import { createHash, randomBytes } from 'node:crypto';
import type { Clock } from '../../platform/clock.js';
import type { DbOrTx } from '../../platform/db/client.js';
import { enforceRateLimit, type RateLimiter } from '../../platform/ratelimit/limiter.js';
import type { XrplChallengeRow } from '../wallets/table.js';
import { XrplErrors } from './xrpl-errors.js';
import type { XrplRepo } from './xrpl-repo.js';

export const XRPL_CHALLENGE_TTL_MS = 10 * 60_000;
const EXPIRED_KEPT_MS = 24 * 60 * 60_000;
const CHALLENGES_PER_WINDOW = 30;

export interface XrplChallengeDto {
  /** The nonce: send it back as `challenge`. Single use, bound to the user (and the address when given). */
  challenge: string;
  /** The exact text to sign (its UTF-8 bytes, with ripple-keypairs). */
  message: string;
  address: string | null;
  issuedAt: string;
  expiresAt: string;
}

const hashNonce = (nonce: string) => createHash('sha256').update(nonce, 'utf8').digest('hex');

/** Single-use challenges for proving control of an XRPL key (cold wallets, secure accounts). */
export function createXrplChallenges(deps: { repo: XrplRepo; clock: Clock; limiter: RateLimiter; publicBaseUrl: () => string }) {
  const { repo, clock, limiter } = deps;
  return {
    async issue(tenantId: string, userId: string, address: string | null): Promise<XrplChallengeDto> {
      await enforceRateLimit(limiter, `xrpl-challenge:${tenantId}:${userId}`, CHALLENGES_PER_WINDOW, XRPL_CHALLENGE_TTL_MS);
      const nonce = randomBytes(16).toString('hex');
      const issuedAt = clock.now();
      const expiresAt = new Date(issuedAt.getTime() + XRPL_CHALLENGE_TTL_MS);
      const host = new URL(deps.publicBaseUrl()).host;
      // Bound: the message names the account, and only that account's registration accepts it.
      // Unbound (the spec's GET without parameters): it names none, and says what signing proves.
      const claim = address
        ? [`${host} asks you to prove that you control this XRPL account.`, `Address: ${address}`]
        : [
            `${host} asks you to prove that you hold an XRPL signing key.`,
            'Address: none (this challenge names no account).',
            `Your signature proves only that you hold the key that made it. ${host} will register with it, once, one account that this key controls (as its master key, its regular key or a key of its signer list), for the user who asked.`,
          ];
      const message = [
        ...claim,
        `Nonce: ${nonce}`,
        `Issued At: ${issuedAt.toISOString()}`,
        `Expiration Time: ${expiresAt.toISOString()}`,
      ].join('\n');
      await repo.deleteExpiredChallenges(tenantId, userId, new Date(issuedAt.getTime() - EXPIRED_KEPT_MS));
      await repo.insertChallenge(tenantId, { nonceHash: hashNonce(nonce), userId, address, message, issuedAt, expiresAt, consumedAt: null });
      return { challenge: nonce, message, address, issuedAt: issuedAt.toISOString(), expiresAt: expiresAt.toISOString() };
    },

    /** The issued challenge for `nonce`, checked (user, address, unused, unexpired); not consumed yet. */
    async check(tenantId: string, userId: string, nonce: string, address: string): Promise<XrplChallengeRow> {
      const row = await repo.findChallenge(tenantId, hashNonce(nonce));
      if (!row || row.userId !== userId) throw XrplErrors.challengeUnknown();
      if (row.consumedAt) throw XrplErrors.challengeUsed();
      if (row.expiresAt <= clock.now()) throw XrplErrors.challengeExpired();
      if (row.address !== null && row.address !== address) throw XrplErrors.challengeAddress();
      return row;
    },

    /** Consumes it in the caller's transaction (with the registration); a concurrent use loses. */
    async consume(tenantId: string, userId: string, row: XrplChallengeRow, db: DbOrTx): Promise<void> {
      if (!(await repo.consumeChallenge(tenantId, row.nonceHash, userId, clock.now(), db))) throw XrplErrors.challengeUsed();
    },
  };
}

export type XrplChallenges = ReturnType<typeof createXrplChallenges>;
