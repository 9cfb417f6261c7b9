import { AppError } from '../http/errors.js';

/** Every rate-limit key in Redis (and in memory) starts with this. */
export const RATE_LIMIT_PREFIX = 'bastion:rl:';

export interface RateLimitResult {
  /** False when this hit went over the limit. */
  allowed: boolean;
  /** Hits left in the current window. */
  remaining: number;
  /** When denied: milliseconds until the window ends; 0 when allowed. */
  retryAfterMs: number;
}

/**
 * Fixed-window counters: the first hit on a key opens a window of `windowMs`; up to `limit`
 * hits in it are allowed, the rest denied until the window ends. Callers pick keys that name
 * the rule and the subject, e.g. `login:<tenant>:<email>` or `otp:<tenant>:<ip>`.
 */
export interface RateLimiter {
  readonly kind: 'memory' | 'redis';
  /** Counts a hit and says whether it is allowed. */
  hit(key: string, limit: number, windowMs: number): Promise<RateLimitResult>;
  /** The state without counting a hit: `allowed` tells whether a hit now would be. */
  peek(key: string, limit: number): Promise<RateLimitResult>;
  /** Forgets the key (e.g. after a successful login). */
  reset(key: string): Promise<void>;
}

export function retryAfterSeconds(retryAfterMs: number): number {
  return Math.max(1, Math.ceil(retryAfterMs / 1000));
}

/** The 429 a denied hit answers: `{ code: 'RATE_LIMITED' }` with a Retry-After header in seconds. */
export function rateLimitedError(retryAfterMs: number, message = 'Too many requests, retry later'): AppError {
  return new AppError(429, 'RATE_LIMITED', message, { 'retry-after': String(retryAfterSeconds(retryAfterMs)) });
}

const RETRY_AFTER_UNAVAILABLE_S = 5;

/**
 * What a limiter call throws while its store (Redis) does not answer: 503
 * `RATE_LIMIT_UNAVAILABLE` with Retry-After. A limit that fails closed lets it through to the
 * client; one that fails open catches it (isRateLimitUnavailable). docs/decisions.md lists
 * which limit does what.
 */
export function rateLimitUnavailableError(): AppError {
  return new AppError(503, 'RATE_LIMIT_UNAVAILABLE', 'The rate-limit store does not answer; retry later', {
    'retry-after': String(RETRY_AFTER_UNAVAILABLE_S),
  });
}

export function isRateLimitUnavailable(error: unknown): boolean {
  return error instanceof AppError && error.code === 'RATE_LIMIT_UNAVAILABLE';
}

/** Counts a hit and throws the 429 when it is denied. */
export async function enforceRateLimit(limiter: RateLimiter, key: string, limit: number, windowMs: number): Promise<RateLimitResult> {
  const result = await limiter.hit(key, limit, windowMs);
  if (!result.allowed) throw rateLimitedError(result.retryAfterMs);
  return result;
}

export function checkHitArgs(limit: number, windowMs: number): void {
  if (!Number.isInteger(limit) || limit < 1) throw new Error('rate limit: limit must be a positive integer');
  if (!Number.isInteger(windowMs) || windowMs < 1) throw new Error('rate limit: windowMs must be a positive integer');
}
