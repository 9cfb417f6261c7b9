import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/platform/clock.js';
import { AppError } from '../../src/platform/http/errors.js';
import { enforceRateLimit, rateLimitedError, type RateLimiter } from '../../src/platform/ratelimit/limiter.js';
import { createMemoryRateLimiter } from '../../src/platform/ratelimit/memory.js';
import { createRedisRateLimiter } from '../../src/platform/ratelimit/redis.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { expectError } from '../helpers/security.js';

const REDIS_URL = process.env.REDIS_URL;
/** Unique per run: suites and other runs share one Redis. */
const RUN = `bastion:rl:test-${randomUUID()}:`;

interface Subject {
  limiter: RateLimiter;
  /** Lets the window pass: the manual clock for memory; Redis keeps its own time. */
  passWindow(windowMs: number): Promise<void>;
}

function contract(name: string, make: () => Subject): void {
  describe(`${name} limiter contract`, () => {
    let s: Subject;
    beforeAll(() => {
      s = make();
    });
    const key = () => `k-${randomUUID()}`;

    it('allows up to the limit, then denies with the time left in the window', async () => {
      const k = key();
      const results = [];
      for (let i = 0; i < 4; i++) results.push(await s.limiter.hit(k, 3, 60_000));
      expect(results.slice(0, 3).map((r) => [r.allowed, r.remaining, r.retryAfterMs])).toEqual([
        [true, 2, 0],
        [true, 1, 0],
        [true, 0, 0],
      ]);
      expect(results[3]).toMatchObject({ allowed: false, remaining: 0 });
      expect(results[3]!.retryAfterMs).toBeGreaterThan(55_000);
      expect(results[3]!.retryAfterMs).toBeLessThanOrEqual(60_000);
    });

    it('keys are independent', async () => {
      const a = key();
      const b = key();
      expect((await s.limiter.hit(a, 1, 60_000)).allowed).toBe(true);
      expect((await s.limiter.hit(a, 1, 60_000)).allowed).toBe(false);
      expect((await s.limiter.hit(b, 1, 60_000)).allowed).toBe(true);
    });

    it('peek does not count; reset forgets the key', async () => {
      const k = key();
      expect(await s.limiter.peek(k, 2)).toEqual({ allowed: true, remaining: 2, retryAfterMs: 0 });
      await s.limiter.hit(k, 2, 60_000);
      expect(await s.limiter.peek(k, 2)).toEqual({ allowed: true, remaining: 1, retryAfterMs: 0 });
      await s.limiter.hit(k, 2, 60_000);
      const full = await s.limiter.peek(k, 2);
      expect(full).toMatchObject({ allowed: false, remaining: 0 });
      expect(full.retryAfterMs).toBeGreaterThan(0);
      expect((await s.limiter.hit(k, 2, 60_000)).allowed).toBe(false);
      await s.limiter.reset(k);
      expect(await s.limiter.hit(k, 2, 60_000)).toEqual({ allowed: true, remaining: 1, retryAfterMs: 0 });
    });

    it('a new window opens when the old one ends', async () => {
      const k = key();
      const windowMs = 40;
      expect((await s.limiter.hit(k, 1, windowMs)).allowed).toBe(true);
      expect((await s.limiter.hit(k, 1, windowMs)).allowed).toBe(false);
      await s.passWindow(windowMs);
      expect(await s.limiter.hit(k, 1, windowMs)).toEqual({ allowed: true, remaining: 0, retryAfterMs: 0 });
    });

    it('rejects a nonsensical limit or window', async () => {
      await expect(s.limiter.hit(key(), 0, 1000)).rejects.toThrow(/limit/);
      await expect(s.limiter.hit(key(), 1, 0)).rejects.toThrow(/windowMs/);
    });
  });
}

contract('memory', () => {
  const clock = new ManualClock();
  return {
    limiter: createMemoryRateLimiter({ clock, prefix: RUN }),
    passWindow: async (ms) => clock.advance(ms),
  };
});

describe.runIf(REDIS_URL)('Redis', () => {
  const connections: Redis[] = [];
  const connect = () => {
    const redis = new Redis(REDIS_URL!, { maxRetriesPerRequest: 1 });
    connections.push(redis);
    return redis;
  };
  afterAll(async () => {
    const redis = connect();
    const keys = await redis.keys(`${RUN}*`);
    if (keys.length) await redis.del(...keys);
    await Promise.all(connections.map((c) => c.quit()));
  });

  contract('redis', () => ({
    limiter: createRedisRateLimiter(connect(), { prefix: RUN }),
    // Redis times windows by its own clock, which no test can move: wait the (tiny) window out.
    passWindow: (ms) => new Promise((resolve) => setTimeout(resolve, ms + 20)),
  }));

  it('two limiter instances on separate connections see each other’s hits', async () => {
    const a = createRedisRateLimiter(connect(), { prefix: RUN });
    const b = createRedisRateLimiter(connect(), { prefix: RUN });
    const k = `shared-${randomUUID()}`;
    expect((await a.hit(k, 3, 60_000)).remaining).toBe(2);
    expect((await b.hit(k, 3, 60_000)).remaining).toBe(1);
    expect((await a.hit(k, 3, 60_000)).remaining).toBe(0);
    expect((await b.hit(k, 3, 60_000)).allowed).toBe(false);
    await a.reset(k);
    expect((await b.hit(k, 3, 60_000)).allowed).toBe(true);
  });

  it('parallel hits are counted atomically', async () => {
    const limiters = [0, 1, 2].map(() => createRedisRateLimiter(connect(), { prefix: RUN }));
    const k = `race-${randomUUID()}`;
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => limiters[i % 3]!.hit(k, 10, 60_000)));
    expect(results.filter((r) => r.allowed)).toHaveLength(10);
  });

  it('keys live under bastion:rl: with an expiry', async () => {
    const redis = connect();
    const limiter = createRedisRateLimiter(redis, { prefix: RUN });
    const k = `ttl-${randomUUID()}`;
    await limiter.hit(k, 5, 30_000);
    const ttl = await redis.pttl(`${RUN}${k}`);
    expect(ttl).toBeGreaterThan(25_000);
    expect(ttl).toBeLessThanOrEqual(30_000);
  });
});

describe('memory limiter bounds', () => {
  it('holds at most maxKeys, sweeping expired windows and then dropping the oldest', async () => {
    const clock = new ManualClock();
    const limiter = createMemoryRateLimiter({ clock, maxKeys: 3, sweepIntervalMs: 10_000 });
    for (let i = 0; i < 5; i++) await limiter.hit(`k${i}`, 1, 1_000);
    expect(limiter.size()).toBe(3);
    // The oldest were dropped to make room: k0 starts afresh, k4 is still counted.
    expect((await limiter.hit('k4', 1, 1_000)).allowed).toBe(false);
    clock.advance(10_000);
    await limiter.hit('fresh', 1, 1_000);
    expect(limiter.size()).toBe(1);
  });
});

describe('rateLimitedError and enforceRateLimit', () => {
  it('a denied hit becomes a 429 RATE_LIMITED with Retry-After in whole seconds', async () => {
    expect(rateLimitedError(1)).toMatchObject({ statusCode: 429, code: 'RATE_LIMITED', headers: { 'retry-after': '1' } });
    expect(rateLimitedError(59_001).headers).toEqual({ 'retry-after': '60' });
    const limiter = createMemoryRateLimiter({ clock: new ManualClock() });
    await enforceRateLimit(limiter, 'x', 1, 30_000);
    const error = await enforceRateLimit(limiter, 'x', 1, 30_000).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ statusCode: 429, code: 'RATE_LIMITED', headers: { 'retry-after': '30' } });
  });
});

describe('HTTP', () => {
  let h: Harness;
  const namespace = `test-${randomUUID()}`;
  beforeAll(async () => {
    h = await createHarness({
      rateLimit: { globalMax: 5, globalWindowMs: 60_000, namespace },
      beforeReady: (app) =>
        app.get('/__test/limited', { config: { tenancy: false }, schema: { hide: true } }, async () => {
          await enforceRateLimit(h.container.rateLimit.limiter, 'test-route', 1, 20_000);
          return { ok: true };
        }),
    });
  });
  afterAll(async () => h.close());

  it('a feature limit answers 429 in the error shape with Retry-After', async () => {
    expect((await h.inject({ method: 'GET', url: '/__test/limited', remoteAddress: '10.9.9.9' })).statusCode).toBe(200);
    const res = await h.inject({ method: 'GET', url: '/__test/limited', remoteAddress: '10.9.9.9' });
    expectError(res, 429, 'RATE_LIMITED');
    expect(res.json()).toEqual({ statusCode: 429, error: 'Too Many Requests', message: 'Too many requests, retry later', code: 'RATE_LIMITED' });
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(20);
  });

  it('the global limit per client IP answers 429 with Retry-After, before tenancy or authentication, on any route', async () => {
    const ip = '10.1.2.3';
    for (let i = 0; i < 5; i++) {
      const res = await h.inject({ method: 'GET', url: '/users?limit=1', headers: h.keyHeaders(), remoteAddress: ip });
      expect(res.statusCode).toBe(200);
    }
    for (const request of [
      { method: 'GET' as const, url: '/users?limit=1', headers: h.keyHeaders() },
      { method: 'GET' as const, url: '/users' },
      { method: 'GET' as const, url: '/no-such-route' },
    ]) {
      const res = await h.inject({ ...request, remoteAddress: ip });
      expect(res.json()).toEqual({ statusCode: 429, error: 'Too Many Requests', message: 'Too many requests, retry later', code: 'RATE_LIMITED' });
      const retryAfter = Number(res.headers['retry-after']);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(res.headers['x-request-id']).toBeTruthy();
    }
    // Another client is unaffected; probes are never limited.
    expect((await h.inject({ method: 'GET', url: '/users?limit=1', headers: h.keyHeaders(), remoteAddress: '10.1.2.4' })).statusCode).toBe(200);
    for (let i = 0; i < 8; i++) {
      expect((await h.inject({ method: 'GET', url: '/health', remoteAddress: ip })).statusCode).toBe(200);
      expect((await h.inject({ method: 'GET', url: '/ready', remoteAddress: ip })).statusCode).toBe(200);
    }
  });

  it.runIf(REDIS_URL)('with REDIS_URL the global counters are shared by every instance', async () => {
    expect(h.container.rateLimit.limiter.kind).toBe('redis');
    const other = await createHarness({ rateLimit: { globalMax: 5, globalWindowMs: 60_000, namespace } });
    try {
      const ip = '10.7.7.7';
      for (let i = 0; i < 3; i++) expect((await h.inject({ method: 'GET', url: '/health/x', remoteAddress: ip })).statusCode).toBe(404);
      for (let i = 0; i < 2; i++) expect((await other.inject({ method: 'GET', url: '/health/x', remoteAddress: ip })).statusCode).toBe(404);
      expectError(await other.inject({ method: 'GET', url: '/health/x', remoteAddress: ip }), 429, 'RATE_LIMITED');
      const ttl = await h.container.rateLimit.redis!.pttl(`bastion:rl:${namespace}:global:ip:${ip}`);
      expect(ttl).toBeGreaterThan(0);
    } finally {
      await other.close();
    }
  });
});

describe('Redis unreachable', () => {
  let h: Harness;
  beforeAll(async () => {
    // Port 1 on loopback: connection refused at once.
    h = await createHarness({ env: { REDIS_URL: 'redis://127.0.0.1:1' } });
  });
  afterAll(async () => h.close());

  it('the global safety net lets requests through; a feature limit fails closed (error, never "allowed")', async () => {
    expect(h.container.rateLimit.limiter.kind).toBe('redis');
    const res = await h.inject({ method: 'GET', url: '/users?limit=1', headers: h.keyHeaders() });
    expect(res.statusCode).toBe(200);
    await expect(h.container.rateLimit.limiter.hit('x', 1, 1000)).rejects.toThrow();
    expect(h.logs.text()).toContain('redis connection error');
  });
});
