import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { expectError } from '../helpers/security.js';
import { countUsers } from '../helpers/read.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
  await h.inject({ method: 'POST', url: '/auth/email', headers: { 'x-tenant-id': h.tenant.tenantId }, payload: { email: 'known@example.com', password: 'a fine passphrase' } });
});
afterAll(async () => h.close());

const post = (url: string, payload: unknown, tenantId = h.tenant.tenantId) =>
  h.inject({ method: 'POST', url, headers: { 'x-tenant-id': tenantId }, payload: payload as object });

describe('registration errors', () => {
  it('400 for a short, a long and a common password, naming the field; nothing is created', async () => {
    for (const password of ['short', 'x'.repeat(129), 'password1', 'Iloveyou1', '12345678']) {
      const res = await post('/auth/email', { email: `p-${randomUUID()}@example.com`, password });
      expectError(res, 400, 'PASSWORD_POLICY');
      expect(res.json().message).toContain('body.password');
    }
    expect(await countUsers(h)).toBe(1);
  });

  it('409 when the email exists; 400 for a malformed body or unknown fields', async () => {
    expectError(await post('/auth/email', { email: 'KNOWN@example.com', password: 'a fine passphrase' }), 409, 'USER_EMAIL_TAKEN');
    expectError(await post('/auth/email', { email: 'nope', password: 'a fine passphrase' }), 400, 'VALIDATION_FAILED');
    expectError(await post('/auth/email', { email: 'x@example.com', password: 'a fine passphrase', role: 'admin' }), 400, 'VALIDATION_FAILED');
    expectError(await post('/auth/email', {}), 400, 'VALIDATION_FAILED');
  });

  it('401 without or with an unknown tenant', async () => {
    expectError(await h.inject({ method: 'POST', url: '/auth/email', payload: { email: 'a@b.co', password: 'a fine passphrase' } }), 401, 'TENANT_REQUIRED');
    expectError(await post('/auth/email', { email: 'a@b.co', password: 'a fine passphrase' }, randomUUID()), 401, 'TENANT_UNKNOWN');
  });
});

describe('login errors', () => {
  it('a wrong password and an unknown email give the same 401', async () => {
    const wrong = await post('/auth/email/login', { email: 'known@example.com', password: 'not the passphrase' });
    const unknown = await post('/auth/email/login', { email: 'nobody@example.com', password: 'not the passphrase' });
    expectError(wrong, 401, 'INVALID_CREDENTIALS');
    expect(unknown.json()).toEqual(wrong.json());
  });

  it('an unknown email still pays for an argon2id verification (similar time)', async () => {
    const timeOne = async (email: string) => {
      const start = performance.now();
      await post('/auth/login', { email, password: 'not the passphrase' });
      return performance.now() - start;
    };
    await timeOne('nobody@example.com'); // warm the dummy hash
    const known: number[] = [];
    const unknown: number[] = [];
    // Interleaved, and compared by their fastest runs: load from elsewhere on the machine only ever
    // adds time, so the minimum is the cost of the work itself (a sum let one stalled request decide).
    for (let i = 0; i < 7; i++) {
      known.push(await timeOne('known@example.com'));
      unknown.push(await timeOne('nobody@example.com'));
    }
    const ratio = Math.min(...unknown) / Math.min(...known);
    expect(ratio).toBeGreaterThan(0.33);
    expect(ratio).toBeLessThan(3);
  });

  it('a user created without a password cannot log in (same 401)', async () => {
    await h.createUser(undefined, 'nopass@example.com');
    expectError(await post('/auth/login', { email: 'nopass@example.com', password: 'anything at all' }), 401, 'INVALID_CREDENTIALS');
  });

  it('the same credentials under another tenant are 401', async () => {
    const other = await h.newTenant();
    expectError(await post('/auth/login', { email: 'known@example.com', password: 'a fine passphrase' }, other.tenantId), 401, 'INVALID_CREDENTIALS');
  });

  it('400 on malformed input', async () => {
    expectError(await post('/auth/login', { email: 'known@example.com' }), 400, 'VALIDATION_FAILED');
    expectError(await post('/auth/login', { email: 'known@example.com', password: 'x', extra: 1 }), 400, 'VALIDATION_FAILED');
  });
});

describe('password hashing pool', () => {
  it('answers 503 with Retry-After when the queue is full, and serves again afterwards', async () => {
    const small = await createHarness({ passwordPool: { maxConcurrent: 1, maxQueue: 1 } });
    try {
      const attempts = await Promise.all(
        Array.from({ length: 6 }, () =>
          small.inject({ method: 'POST', url: '/auth/login', headers: { 'x-tenant-id': small.tenant.tenantId }, payload: { email: 'x@example.com', password: 'whatever pass' } }),
        ),
      );
      const busy = attempts.filter((r) => r.statusCode === 503);
      expect(busy.length).toBeGreaterThan(0);
      expect(busy[0]!.headers['retry-after']).toBe('1');
      expect(busy[0]!.json()).toMatchObject({ statusCode: 503, code: 'BUSY' });
      expect(attempts.filter((r) => r.statusCode === 401).length).toBeGreaterThan(0);
      const later = await small.inject({ method: 'POST', url: '/auth/login', headers: { 'x-tenant-id': small.tenant.tenantId }, payload: { email: 'x@example.com', password: 'whatever pass' } });
      expect(later.statusCode).toBe(401);
    } finally {
      await small.close();
    }
  });
});

describe('service token errors', () => {
  it('404 for a user of another tenant and an unknown user; 400 for a malformed id', async () => {
    const other = await h.newTenant();
    const foreign = await h.createUser(other);
    expectError(await h.inject({ method: 'POST', url: `/auth/users/${foreign}/token`, headers: h.keyHeaders() }), 404, 'USER_NOT_FOUND');
    expectError(await h.inject({ method: 'POST', url: `/auth/users/${randomUUID()}/token`, headers: h.keyHeaders() }), 404, 'USER_NOT_FOUND');
    expectError(await h.inject({ method: 'POST', url: '/auth/users/xyz/token', headers: h.keyHeaders() }), 400, 'VALIDATION_FAILED');
  });
});
