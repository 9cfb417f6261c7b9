import type { Clock } from '../clock.js';
import { checkHitArgs, RATE_LIMIT_PREFIX, type RateLimiter, type RateLimitResult } from './limiter.js';

interface Window {
  count: number;
  endsAt: number;
}

export interface MemoryRateLimiterOptions {
  clock: Clock;
  /** Most keys kept; past it expired windows are swept, then the oldest are dropped. */
  maxKeys?: number;
  /** How often (by the clock) expired windows are swept. */
  sweepIntervalMs?: number;
  prefix?: string;
}

/**
 * The limiter of a single instance (no REDIS_URL): windows in a Map, timed by the injected
 * clock, bounded in size. Several instances each count on their own; use Redis for those.
 */
export function createMemoryRateLimiter(options: MemoryRateLimiterOptions): RateLimiter & { size(): number } {
  const { clock } = options;
  const maxKeys = options.maxKeys ?? 100_000;
  const sweepIntervalMs = options.sweepIntervalMs ?? 60_000;
  const prefix = options.prefix ?? RATE_LIMIT_PREFIX;
  const windows = new Map<string, Window>();
  let lastSweep = clock.now().getTime();

  function sweep(now: number): void {
    lastSweep = now;
    for (const [key, window] of windows) if (window.endsAt <= now) windows.delete(key);
  }

  function live(key: string, now: number): Window | undefined {
    const window = windows.get(key);
    if (window && window.endsAt <= now) {
      windows.delete(key);
      return undefined;
    }
    return window;
  }

  function result(window: Window | undefined, limit: number, now: number, counted: boolean): RateLimitResult {
    const count = window?.count ?? 0;
    const allowed = counted ? count <= limit : count < limit;
    return { allowed, remaining: Math.max(0, limit - count), retryAfterMs: allowed || !window ? 0 : window.endsAt - now };
  }

  return {
    kind: 'memory',
    async hit(key, limit, windowMs) {
      checkHitArgs(limit, windowMs);
      const now = clock.now().getTime();
      if (now - lastSweep >= sweepIntervalMs) sweep(now);
      const fullKey = prefix + key;
      let window = live(fullKey, now);
      if (!window) {
        // Full: sweep expired windows (at most once a second, so a flood of new keys stays cheap).
        if (windows.size >= maxKeys && now - lastSweep >= 1_000) sweep(now);
        // Still full: drop the oldest windows (Map order is insertion order).
        for (const oldest of windows.keys()) {
          if (windows.size < maxKeys) break;
          windows.delete(oldest);
        }
        window = { count: 0, endsAt: now + windowMs };
        windows.set(fullKey, window);
      }
      window.count += 1;
      return result(window, limit, now, true);
    },
    async peek(key, limit) {
      const now = clock.now().getTime();
      return result(live(prefix + key, now), limit, now, false);
    },
    async reset(key) {
      windows.delete(prefix + key);
    },
    /** Keys held (live or not yet swept). */
    size: () => windows.size,
  };
}
