import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { checkHitArgs, RATE_LIMIT_PREFIX, type RateLimiter } from './limiter.js';

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
 */
export function createRedisRateLimiter(redis: Redis, options: { prefix?: string } = {}): RateLimiter {
  const prefix = options.prefix ?? RATE_LIMIT_PREFIX;
  if (!('bastionRateHit' in redis)) {
    redis.defineCommand('bastionRateHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
    redis.defineCommand('bastionRatePeek', { numberOfKeys: 1, lua: PEEK_SCRIPT });
  }
  const scripted = redis as unknown as ScriptedRedis;
  return {
    kind: 'redis',
    async hit(key, limit, windowMs) {
      checkHitArgs(limit, windowMs);
      const [count, ttl] = await scripted.bastionRateHit(prefix + key, windowMs);
      const allowed = count <= limit;
      return { allowed, remaining: Math.max(0, limit - count), retryAfterMs: allowed ? 0 : Math.max(1, ttl) };
    },
    async peek(key, limit) {
      const [count, ttl] = await scripted.bastionRatePeek(prefix + key);
      const allowed = count < limit;
      return { allowed, remaining: Math.max(0, limit - count), retryAfterMs: allowed ? 0 : Math.max(1, ttl) };
    },
    async reset(key) {
      await redis.del(prefix + key);
    },
  };
}

/**
 * The Redis connection of the process (rate limits). Commands fail fast when Redis is
 * unreachable instead of queueing for long; connection errors are logged, not thrown.
 */
export function openRedis(url: string, logger: Logger): Redis {
  const redis = new Redis(url, {
    maxRetriesPerRequest: 1,
    connectTimeout: 5_000,
    commandTimeout: 2_000,
  });
  redis.on('error', (error: Error) => logger.warn({ error: error.message }, 'redis connection error'));
  return redis;
}

/** Closes the connection: QUIT when connected (flushes pending replies), otherwise drops it. */
export async function closeRedis(redis: Redis): Promise<void> {
  if (redis.status === 'ready') {
    await redis.quit().catch(() => redis.disconnect());
  } else {
    redis.disconnect();
  }
}
