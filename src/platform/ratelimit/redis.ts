import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { checkHitArgs, RATE_LIMIT_PREFIX, rateLimitUnavailableError, type RateLimiter } from './limiter.js';

/**
 * One round trip, atomic: count the hit, open the window on the first hit (PEXPIRE), and
 * return the count and the time left (PTTL). A key that somehow lost its expiry gets one.
 */
const HIT_SCRIPT = `
local n = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if n == 1 or ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {n, ttl}
`;

const PEEK_SCRIPT = `
local n = tonumber(redis.call('GET', KEYS[1]) or '0')
local ttl = redis.call('PTTL', KEYS[1])
return {n, ttl}
`;

interface ScriptedRedis {
  bastionRateHit(key: string, windowMs: number): Promise<[number, number]>;
  bastionRatePeek(key: string): Promise<[number, number]>;
}

/**
 * The limiter shared by every instance: counters in Redis. Windows are timed by the Redis
 * server's clock (the key's PEXPIRE), not by the injected Clock, so they are the same for all
 * instances whatever their clocks say; tests of expiry use the memory limiter.
 *
 * With a breaker, every command goes through it: while Redis does not answer, a call rejects at
 * once with the 503 of rateLimitUnavailableError (the global net catches it and lets the request
 * through; the feature limits fail closed). Without one (tests), Redis errors pass as they are.
 */
export function createRedisRateLimiter(redis: Redis, options: { prefix?: string; breaker?: RedisBreaker } = {}): RateLimiter {
  const prefix = options.prefix ?? RATE_LIMIT_PREFIX;
  if (!('bastionRateHit' in redis)) {
    redis.defineCommand('bastionRateHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
    redis.defineCommand('bastionRatePeek', { numberOfKeys: 1, lua: PEEK_SCRIPT });
  }
  const scripted = redis as unknown as ScriptedRedis;
  const run = options.breaker ? options.breaker.run : <T>(command: () => Promise<T>) => command();
  return {
    kind: 'redis',
    async hit(key, limit, windowMs) {
      checkHitArgs(limit, windowMs);
      const [count, ttl] = await run(() => scripted.bastionRateHit(prefix + key, windowMs));
      const allowed = count <= limit;
      return { allowed, remaining: Math.max(0, limit - count), retryAfterMs: allowed ? 0 : Math.max(1, ttl) };
    },
    async peek(key, limit) {
      const [count, ttl] = await run(() => scripted.bastionRatePeek(prefix + key));
      const allowed = count < limit;
      return { allowed, remaining: Math.max(0, limit - count), retryAfterMs: allowed ? 0 : Math.max(1, ttl) };
    },
    async reset(key) {
      await run(() => redis.del(prefix + key));
    },
  };
}

export interface RedisTimings {
  /** A command without an answer after this long fails (and opens the breaker). */
  commandTimeoutMs?: number;
  connectTimeoutMs?: number;
  /** While the breaker is open, Redis is pinged this often. */
  probeIntervalMs?: number;
}

/**
 * The Redis connection of the process (rate limits). Commands never wait for a connection
 * (no offline queue, no retry): a command either has a connected Redis that answers within
 * the command timeout, or fails at once. ioredis reconnects on its own in the background.
 */
export function openRedis(url: string, timings: RedisTimings = {}): Redis {
  return new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: timings.connectTimeoutMs ?? 1_000,
    // A backstop that drops commands a frozen Redis never answers; the breaker's own deadline
    // (commandTimeoutMs, 250 ms) is what a request waits.
    commandTimeout: 5_000,
    // Reconnect attempts: quickly at first, then every 2 s.
    retryStrategy: (times) => Math.min(times * 100, 2_000),
  });
}

export interface RedisBreaker {
  /** Runs a command: at once the 503 while the breaker is open; a failure opens it. */
  run<T>(command: () => Promise<T>): Promise<T>;
  /** True while Redis answers. */
  available(): boolean;
  /** Resolves true once Redis answers a ping, false after `ms` without. */
  whenAvailable(ms: number): Promise<boolean>;
  stop(): void;
}

/**
 * The circuit breaker in front of Redis: after a failed command (refused, closed, timed out),
 * commands are not sent to Redis at all (they fail at once) until a background probe (PING,
 * every `probeIntervalMs`, and at each reconnection) is answered. So a Redis that is gone
 * costs a request nothing, and a Redis that stops answering costs at most one command timeout
 * to the requests already waiting on it. State changes are logged, once each.
 */
export function createRedisBreaker(redis: Redis, logger: Logger, timings: RedisTimings = {}): RedisBreaker {
  const probeIntervalMs = timings.probeIntervalMs ?? 1_000;
  const commandTimeoutMs = timings.commandTimeoutMs ?? 250;
  let open = true; // closed once the first ping is answered
  let everUp = false;
  let reported = false;
  let probing: NodeJS.Timeout | undefined;
  let probeInFlight = false;
  let stopped = false;
  const waiters = new Set<() => void>();

  function close(): void {
    if (!open) return;
    open = false;
    if (reported) logger.info('redis answers again: rate limits are counted in Redis');
    everUp = true;
    reported = false;
    if (probing) clearInterval(probing);
    probing = undefined;
    for (const wake of waiters) wake();
  }

  function trip(error: unknown): void {
    if (stopped) return;
    open = true;
    if (!reported) {
      reported = true;
      logger.warn(
        { error: error instanceof Error ? error.message : String(error) },
        'redis connection error: Redis does not answer; the global limit is skipped and the feature limits answer 503 until it does',
      );
    }
    probing ??= setInterval(probe, probeIntervalMs).unref();
  }

  function probe(): void {
    if (stopped || !open || probeInFlight || redis.status !== 'ready') return;
    probeInFlight = true;
    withDeadline(redis.ping(), commandTimeoutMs)
      .then(close, () => undefined)
      .finally(() => (probeInFlight = false));
  }

  redis.on('ready', probe);
  redis.on('error', (error: Error) => trip(error));
  redis.on('close', () => trip(new Error('connection closed')));
  // Not yet answered: open, probing (not a failure to report).
  probing = setInterval(probe, probeIntervalMs).unref();
  probe();

  return {
    async run<T>(command: () => Promise<T>): Promise<T> {
      if (open || redis.status !== 'ready') {
        if (!open || !everUp) trip(new Error(`connection ${redis.status}`));
        throw rateLimitUnavailableError();
      }
      try {
        return await withDeadline(command(), commandTimeoutMs);
      } catch (error) {
        // A Redis error that is an answer (e.g. a script error) would also land here: any
        // failure to count is treated alike, and the probe closes the breaker again.
        trip(error);
        throw rateLimitUnavailableError();
      }
    },
    available: () => !open,
    whenAvailable(ms) {
      if (!open) return Promise.resolve(true);
      return new Promise((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          waiters.delete(wake);
          resolve(!open);
        };
        const timer = setTimeout(wake, ms);
        waiters.add(wake);
      });
    },
    stop() {
      stopped = true;
      if (probing) clearInterval(probing);
      for (const wake of waiters) wake();
    },
  };
}
/**
 * The command's answer, or a rejection after `ms`. The deadline is checked once the event loop
 * has also read its sockets (a timer, then setImmediate, after the poll phase): after the loop
 * was blocked longer than `ms` (a busy process), an answer that arrived meanwhile still wins
 * instead of opening the breaker for a Redis that answered in time.
 */
function withDeadline<T>(command: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const timer = setTimeout(() => {
      setImmediate(() => {
        if (settled) return;
        settled = true;
        reject(new Error(`Redis did not answer within ${ms} ms`));
      });
    }, ms);
    command.then(
      (value) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

/** Closes the connection: QUIT when connected (flushes pending replies), otherwise drops it. */
export async function closeRedis(redis: Redis): Promise<void> {
  if (redis.status === 'ready') {
    await redis.quit().catch(() => redis.disconnect());
  } else {
    redis.disconnect();
  }
}
