import { dictionary } from '@zxcvbn-ts/language-common';
import pLimit from 'p-limit';
import { randomToken } from '../../platform/crypto/hash.js';
import { AuthErrors } from './errors.js';
import { createPasswordWorkers } from './password-workers.js';

/** OWASP parameters (DESIGN.md): argon2id, m=19456 KiB, t=2, p=1. Algorithm 2 = Argon2id. */
export const ARGON2_OPTIONS = { algorithm: 2, memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;

/** Hashes running at once by default: one per core of the 2-core machines Bastion is sized for. */
export const PASSWORD_POOL_CONCURRENCY = 2;

export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 128;

// The most common passwords (zxcvbn-ts common list, ~49k); only those the length rule lets through matter.
const COMMON = new Set(
  (dictionary['passwords-common'] as string[]).filter((p) => p.length >= PASSWORD_MIN).map((p) => p.toLowerCase()),
);

/** Throws a 400 naming the rule the password breaks. */
export function checkPasswordPolicy(password: string, field = 'password'): void {
  const length = [...password].length;
  if (length < PASSWORD_MIN || length > PASSWORD_MAX) throw AuthErrors.passwordLength(field);
  if (COMMON.has(password.toLowerCase())) throw AuthErrors.passwordCommon(field);
}

/**
 * argon2id with bounded concurrency: at most `maxConcurrent` hashes run at once (one per
 * core) and at most `maxQueue` wait; beyond that the caller gets a 503 with Retry-After. They
 * run on worker threads of lowered CPU priority (password-workers.ts), so a burst of logins
 * cannot starve every other route of CPU.
 */
export function createPasswordHasher(options: { maxConcurrent?: number; maxQueue?: number } = {}) {
  const maxConcurrent = options.maxConcurrent ?? PASSWORD_POOL_CONCURRENCY;
  const maxQueue = options.maxQueue ?? 64;
  const slots = pLimit(maxConcurrent);
  let dummyHash: Promise<string> | undefined;
  const workers = createPasswordWorkers(maxConcurrent);

  // p-limit starts a queued call a microtask later: running plus waiting is what it holds.
  function withSlot<T>(fn: () => Promise<T>): Promise<T> {
    if (slots.activeCount + slots.pendingCount >= maxConcurrent + maxQueue) return Promise.reject(AuthErrors.busy());
    return slots(fn);
  }

  const hasher = {
    hash: (password: string) => withSlot(async () => (await workers.run({ op: 'hash', password, options: ARGON2_OPTIONS })) as string),
    async verify(passwordHash: string, password: string): Promise<boolean> {
      return withSlot(async () => {
        try {
          return (await workers.run({ op: 'verify', hash: passwordHash, password, options: ARGON2_OPTIONS })) === true;
        } catch {
          return false;
        }
      });
    },
    /** Pays for one verification against a dummy hash, so an unknown account costs the same time. */
    async verifyDummy(password: string): Promise<false> {
      dummyHash ??= hasher.hash(randomToken(16));
      await hasher.verify(await dummyHash, password);
      return false;
    },
    stats: () => ({ running: slots.activeCount, queued: slots.pendingCount }),
    /** Stops the worker threads (container.close). */
    close: () => workers.close(),
  };
  return hasher;
}

export type PasswordHasher = ReturnType<typeof createPasswordHasher>;
