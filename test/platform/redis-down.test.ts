import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POSTGRES_PASS_ONLY } from '../helpers/passes.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { expectError } from '../helpers/security.js';

/** A port nothing listens on: bound, read, released. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A Redis of this test's own (never the machine's shared one), without persistence. */
async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  const deadline = Date.now() + 10_000;
  while (!out.includes('Ready to accept connections')) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`redis-server did not start: ${out}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return child;
}

async function timed<T>(run: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await run();
  return { value, ms: performance.now() - started };
}

const password = 'correct horse battery staple 7';

function login(h: Harness, email: string) {
  return h.inject({ method: 'POST', url: '/auth/login', headers: { 'x-tenant-id': h.tenant.tenantId }, payload: { email, password } });
}

function register(h: Harness, email: string) {
  return h.inject({ method: 'POST', url: '/auth/email', headers: { 'x-tenant-id': h.tenant.tenantId }, payload: { email, password } });
}

function listUsers(h: Harness) {
  return h.inject({ method: 'GET', url: '/users?limit=1', headers: h.keyHeaders() });
}

function expectUnavailable(res: Awaited<ReturnType<typeof login>>): void {
  expectError(res, 503, 'RATE_LIMIT_UNAVAILABLE');
  expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
}

describe.skipIf(POSTGRES_PASS_ONLY)('REDIS_URL on a closed port', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({ env: { REDIS_URL: `redis://127.0.0.1:${await freePort()}` } });
  });
  afterAll(async () => h.close());

  it('routes without a feature limit answer at once; login fails closed with 503 and Retry-After; sign-up still works', async () => {
    expect(h.logs.text()).toContain('REDIS_URL does not answer at start');
    for (let i = 0; i < 3; i++) {
      const { value, ms } = await timed(() => listUsers(h));
      expect(value.statusCode).toBe(200);
      expect(ms).toBeLessThan(500);
    }
    const { value: denied, ms } = await timed(() => login(h, 'someone@example.com'));
    expectUnavailable(denied);
    expect(ms).toBeLessThan(500);

    // Sign-ups at once: each answers (the verification mail of a new account is sent uncapped).
    const emails = Array.from({ length: 10 }, () => `new-${randomUUID()}@example.com`);
    const answers = await Promise.all(emails.map((email) => register(h, email)));
    expect(answers.map((a) => a.statusCode)).toEqual(emails.map(() => 201));
  });
});

describe.skipIf(POSTGRES_PASS_ONLY)('a Redis that stops answering mid-run', () => {
  let h: Harness;
  let redis: ChildProcess;
  let port: number;
  const email = `known-${randomUUID()}@example.com`;
  beforeAll(async () => {
    port = await freePort();
    redis = await startRedis(port);
    h = await createHarness({
      env: { REDIS_URL: `redis://127.0.0.1:${port}` },
      rateLimit: { redis: { commandTimeoutMs: 200, probeIntervalMs: 50 } },
    });
    expect((await register(h, email)).statusCode).toBe(201);
  });
  afterAll(async () => {
    redis.kill('SIGKILL');
    await h.close();
  });

  it('a busy process (event loop blocked past the deadline) does not take an answer read late for a silent Redis', async () => {
    const pending = h.container.rateLimit.limiter.hit(`busy-${randomUUID()}`, 10, 60_000);
    const until = Date.now() + 400; // twice the 200 ms deadline
    while (Date.now() < until) {
      // blocked, as by a long synchronous task
    }
    await expect(pending).resolves.toMatchObject({ allowed: true });
    expect(h.container.rateLimit.breaker!.available()).toBe(true);
  });

  it('frozen (SIGSTOP): one command timeout at most, then 503s and passes without waiting; back (SIGCONT): counted in Redis again', async () => {
    expect((await login(h, email)).statusCode).toBe(201);
    const key = `${h.container.rateLimit.keyPrefix}login-ip:${h.tenant.tenantId}:127.0.0.1`;
    expect(Number(await h.container.rateLimit.redis!.get(key))).toBe(1);

    redis.kill('SIGSTOP');
    try {
      // The first request waits one command timeout (200 ms) on the global limit, then passes.
      const first = await timed(() => listUsers(h));
      expect(first.value.statusCode).toBe(200);
      expect(first.ms).toBeLessThan(1_000);
      // From then on nothing waits on Redis.
      for (let i = 0; i < 3; i++) {
        const { value, ms } = await timed(() => listUsers(h));
        expect(value.statusCode).toBe(200);
        expect(ms).toBeLessThan(150);
        const denied = await timed(() => login(h, email));
        expectUnavailable(denied.value);
        expect(denied.ms).toBeLessThan(150);
      }
      expect(h.logs.text()).toContain('redis connection error');
    } finally {
      redis.kill('SIGCONT');
    }
    // The probe finds Redis again: logins are counted there.
    const deadline = Date.now() + 5_000;
    while (!h.container.rateLimit.breaker!.available()) {
      expect(Date.now()).toBeLessThan(deadline);
      await new Promise((r) => setTimeout(r, 20));
    }
    expect((await login(h, email)).statusCode).toBe(201);
    expect(Number(await h.container.rateLimit.redis!.get(key))).toBeGreaterThanOrEqual(2);
    expect(h.logs.text()).toContain('redis answers again');
  });

  it('killed: 503s and passes at once, no 500', async () => {
    redis.kill('SIGKILL');
    await new Promise<void>((resolve) => redis.once('exit', () => resolve()));
    for (let i = 0; i < 3; i++) {
      const { value, ms } = await timed(() => listUsers(h));
      expect(value.statusCode).toBe(200);
      expect(ms).toBeLessThan(300);
      const denied = await timed(() => login(h, email));
      expectUnavailable(denied.value);
      expect(denied.ms).toBeLessThan(300);
    }
    // A code check fails closed too.
    expectUnavailable(await h.inject({ method: 'POST', url: '/auth/email/verify-otp', headers: { 'x-tenant-id': h.tenant.tenantId }, payload: { email, code: '123456' } }));
  });
});
