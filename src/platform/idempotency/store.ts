import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { Db } from '../db/client.js';
import { AppError, httpStatusText } from '../http/errors.js';
import type { BackgroundRunner } from '../module/background.js';
import { isUnchanged } from './before-effects.js';
import { IdempotencyErrors } from './errors.js';
import { createIdempotencyRepo, type KeyRef, type StoredAnswer } from './repo.js';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** What identifies one idempotent request. */
export interface IdempotencyRequest extends KeyRef {
  /** SHA-256 hex of the canonical request (see requestHash); a repeat must match it. */
  requestHash: string;
}

export interface IdempotentAnswer<B = unknown> {
  statusCode: number;
  body: B;
}

export interface IdempotencyOutcome<B = unknown> extends IdempotentAnswer<B> {
  /** True when this is the stored answer of an earlier request. */
  replayed: boolean;
}

/** The claim of the request that runs the work: it stores the answer or gives the key back. */
export interface RunningClaim {
  kind: 'run';
  finish(answer: StoredAnswer): Promise<void>;
  release(): Promise<void>;
}

export type Begun = RunningClaim | { kind: 'replay'; answer: StoredAnswer };

export interface IdempotencyStoreOptions {
  db: Db;
  clock: Clock;
  logger?: Logger;
  /** Runs the opportunistic prune of expired keys off the request path. */
  background?: BackgroundRunner;
  /** How long a key and its answer are kept (24 h). */
  ttlMs?: number;
  /** After this long a running claim counts as abandoned (its instance died) and a repeat may take it over (5 min). */
  leaseMs?: number;
  /** How long a repeat waits for the first request to finish before answering 409 IDEMPOTENCY_IN_PROGRESS (2 s). */
  waitMs?: number;
  /** Prune expired keys at most this often per store (10 min; 0 turns the opportunistic prune off). */
  pruneEveryMs?: number;
  /** Limits the prune to these tenants (tests sharing one PostgreSQL, as the mail worker's option). */
  tenantIds?: () => readonly string[];
}

/**
 * An answer is final, stored and replayed, unless it says "try again": a 5xx, 408 or 429 gives
 * the key back so a retry runs the work again. (A 4xx raised before the work changed anything,
 * see beforeEffects, gives it back too.)
 */
export function isFinalStatus(statusCode: number): boolean {
  return statusCode < 500 && statusCode !== 408 && statusCode !== 429;
}

const JSON_TYPE = 'application/json; charset=utf-8';
const MAX_ROUNDS = 100;

export function createIdempotencyStore(options: IdempotencyStoreOptions) {
  const { clock } = options;
  const repo = createIdempotencyRepo(options.db);
  const ttlMs = options.ttlMs ?? IDEMPOTENCY_TTL_MS;
  const leaseMs = options.leaseMs ?? 5 * 60 * 1000;
  const waitMs = options.waitMs ?? 2_000;
  const pruneEveryMs = options.pruneEveryMs ?? 10 * 60 * 1000;
  let lastPrune = clock.now().getTime();

  const later = (ms: number) => new Date(clock.now().getTime() + ms);

  function maybePrune(): void {
    if (!pruneEveryMs || !options.background) return;
    const now = clock.now().getTime();
    if (now - lastPrune < pruneEveryMs) return;
    lastPrune = now;
    options.background.run('idempotency prune', async () => {
      await prune();
    });
  }

  function running(tenantId: string, ref: KeyRef, token: string): RunningClaim {
    return {
      kind: 'run',
      async finish(answer) {
        const stored = await repo.finish(tenantId, ref, token, answer);
        if (!stored) options.logger?.warn({ tenantId, scope: ref.scope }, 'idempotency claim was taken over before its answer was stored');
      },
      async release() {
        await repo.release(tenantId, ref, token);
      },
    };
  }

  /**
   * Claims the key for this request, or finds the first request's answer. Throws 409
   * IDEMPOTENCY_KEY_REUSED for another request under the key, and 409 IDEMPOTENCY_IN_PROGRESS
   * when the first is still running after `waitMs`.
   */
  async function begin(tenantId: string, request: IdempotencyRequest): Promise<Begun> {
    maybePrune();
    const ref: KeyRef = { scope: request.scope, caller: request.caller, key: request.key };
    const started = Date.now();
    let pause = 10;
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const now = clock.now();
      const token = randomUUID();
      const claimed = await repo.claim(tenantId, ref, {
        requestHash: request.requestHash,
        claimToken: token,
        leaseUntil: later(leaseMs),
        createdAt: now,
        expiresAt: later(ttlMs),
      });
      if (claimed) return running(tenantId, ref, token);

      const row = await repo.find(tenantId, ref);
      if (!row) continue; // released or pruned in between: claim again
      if (row.expiresAt <= now) {
        await repo.deleteExpired(tenantId, ref, now);
        continue;
      }
      if (row.requestHash !== request.requestHash) throw IdempotencyErrors.keyReused();
      if (row.state === 'done') {
        return { kind: 'replay', answer: { statusCode: row.statusCode!, contentType: row.contentType, body: row.body! } };
      }
      if (row.leaseUntil <= now) {
        const taken = randomUUID();
        if (await repo.takeOver(tenantId, ref, row.claimToken, taken, later(leaseMs), now)) return running(tenantId, ref, taken);
        continue;
      }
      // The first request is still at work: wait (real time: it is real work) for its answer.
      const left = waitMs - (Date.now() - started);
      if (left <= 0) break;
      await sleep(Math.min(pause, left));
      pause = Math.min(pause * 2, 200);
    }
    throw IdempotencyErrors.inProgress();
  }

  /**
   * Runs `work` once per key: the first request runs it and its answer is stored; a repeat
   * with the same request gets that answer (`replayed: true`); another request under the key
   * is a 409. A thrown AppError with a final status (4xx but 408/429) is an answer too, in the
   * error shape, unless it was raised before the work changed anything (changedNothing /
   * beforeEffects); that one, and any other failure, gives the key back and is rethrown.
   */
  async function idempotent<B>(
    tenantId: string,
    request: IdempotencyRequest,
    work: () => Promise<IdempotentAnswer<B>>,
  ): Promise<IdempotencyOutcome<B>> {
    const begun = await begin(tenantId, request);
    if (begun.kind === 'replay') return { statusCode: begun.answer.statusCode, body: JSON.parse(begun.answer.body) as B, replayed: true };
    let answer: IdempotentAnswer<unknown>;
    try {
      answer = await work();
    } catch (error) {
      if (!(error instanceof AppError) || !isFinalStatus(error.statusCode) || isUnchanged(error)) {
        await begun.release().catch((releaseError: unknown) => options.logger?.error({ err: releaseError }, 'idempotency release failed'));
        throw error;
      }
      answer = { statusCode: error.statusCode, body: { statusCode: error.statusCode, error: httpStatusText(error.statusCode), message: error.message, code: error.code } };
    }
    if (!isFinalStatus(answer.statusCode)) {
      await begun.release();
      return { statusCode: answer.statusCode, body: answer.body as B, replayed: false };
    }
    // The first caller gets exactly what a repeat will get: the JSON round trip of its answer.
    const body = JSON.stringify(answer.body ?? null);
    // The work has happened: its answer goes back even if storing it fails (logged; the claim
    // then stays running until its lease passes).
    await begun
      .finish({ statusCode: answer.statusCode, contentType: JSON_TYPE, body })
      .catch((finishError: unknown) => options.logger?.error({ err: finishError }, 'idempotency answer could not be stored'));
    return { statusCode: answer.statusCode, body: JSON.parse(body) as B, replayed: false };
  }

  /** Deletes expired keys in batches; returns how many went. */
  async function prune(batch = 1_000, maxBatches = 100): Promise<number> {
    let total = 0;
    for (let i = 0; i < maxBatches; i++) {
      const removed = await repo.pruneExpired(clock.now(), batch, options.tenantIds?.());
      total += removed;
      if (removed < batch) break;
    }
    return total;
  }

  return { begin, idempotent, prune, ttlMs, leaseMs, waitMs };
}

export type IdempotencyStore = ReturnType<typeof createIdempotencyStore>;
