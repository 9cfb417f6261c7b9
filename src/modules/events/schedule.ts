/**
 * The retry schedule: exponential backoff with full jitter. After the n-th failed attempt the
 * next one waits a uniformly random time between 1 s and min(6 h, 10 s x 2^(n-1)):
 * ceilings 10 s, 20 s, 40 s, 80 s, 160 s, 5.3 min, 10.7 min, 21 min, 43 min, 85 min, 2.8 h,
 * 5.7 h, then 6 h. A delivery still failing 72 hours after it was queued is given up
 * (`failed`) and its endpoint disabled, about 30 attempts in (the jitter makes it vary).
 */
export const RETRY_BASE_MS = 10_000;
export const RETRY_CAP_MS = 6 * 3_600_000;
export const RETRY_MIN_MS = 1_000;
export const RETRY_WINDOW_MS = 72 * 3_600_000;

/** The longest wait after `failedAttempts` failures (the jitter draws below it). */
export function retryCeilingMs(failedAttempts: number): number {
  const exponent = Math.min(Math.max(failedAttempts, 1) - 1, 30);
  return Math.min(RETRY_CAP_MS, RETRY_BASE_MS * 2 ** exponent);
}

/** The wait before the next attempt; `random` in [0, 1). */
export function retryDelayMs(failedAttempts: number, random: () => number = Math.random): number {
  return Math.max(RETRY_MIN_MS, Math.floor(random() * retryCeilingMs(failedAttempts)));
}
