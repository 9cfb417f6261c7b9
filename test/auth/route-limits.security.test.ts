import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness, type TestTenant } from '../helpers/harness.js';
import { expectError } from '../helpers/security.js';

/**
 * The request limits routes declare beside themselves (config.rateLimit), applied by the one
 * platform hook: per client address within a tenant, over the limit 429 RATE_LIMITED with
 * Retry-After, counted after validation.
 */
let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h.close());

const post = (tenant: TestTenant, url: string, payload: unknown) =>
  h.inject({ method: 'POST', url, headers: { 'x-tenant-id': tenant.tenantId }, payload: (typeof payload === 'function' ? payload() : payload) as object });

// Login also locks an account after 10 failures: each login names another address.
let n = 0;
const anyLogin = () => ({ email: `nobody-${++n}@example.com`, password: 'wrong passphrase!' });

const rules: Array<{ url: string; max: number; payload: unknown; under: number }> = [
  { url: '/auth/login', max: 30, payload: anyLogin, under: 401 },
  { url: '/auth/email/resend-verification', max: 10, payload: { email: 'nobody@example.com' }, under: 201 },
  { url: '/auth/email/resend-otp', max: 10, payload: { email: 'nobody@example.com' }, under: 201 },
  { url: '/auth/forgot-password', max: 10, payload: { email: 'nobody@example.com' }, under: 201 },
  { url: '/auth/forgot-password/request-otp', max: 10, payload: { email: 'nobody@example.com' }, under: 201 },
  { url: '/auth/email/verify-otp', max: 30, payload: { email: 'nobody@example.com', code: '123456' }, under: 400 },
  { url: '/auth/forgot-password/verify-otp', max: 30, payload: { email: 'nobody@example.com', code: '123456' }, under: 400 },
  { url: '/auth/token-status', max: 60, payload: { token: 'not-a-reset-token' }, under: 400 },
  { url: '/auth/passkeys/login/begin', max: 30, payload: {}, under: 201 },
  { url: '/auth/passkeys/login/finish', max: 30, payload: { credential: { id: 'AAAA', rawId: 'AAAA', type: 'public-key', clientExtensionResults: {}, response: { clientDataJSON: 'AAAA', authenticatorData: 'AAAA', signature: 'AAAA' } } }, under: 400 },
];

describe('route request limits', () => {
  for (const rule of rules) {
    it(`POST ${rule.url}: ${rule.max} per address, then 429 RATE_LIMITED with Retry-After; another tenant has its own budget`, async () => {
      const tenant = await h.newTenant();
      for (let i = 0; i < rule.max; i++) expect((await post(tenant, rule.url, rule.payload)).statusCode).toBe(rule.under);
      const over = await post(tenant, rule.url, rule.payload);
      expectError(over, 429, 'RATE_LIMITED');
      expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
      expect((await post(await h.newTenant(), rule.url, rule.payload)).statusCode).toBe(rule.under);
    });
  }

  it('/auth/login and /auth/email/login share one budget, and the 429 says it is about logins', async () => {
    const tenant = await h.newTenant();
    for (let i = 0; i < 15; i++) expect((await post(tenant, '/auth/login', anyLogin)).statusCode).toBe(401);
    for (let i = 0; i < 15; i++) expect((await post(tenant, '/auth/email/login', anyLogin)).statusCode).toBe(401);
    const over = await post(tenant, '/auth/email/login', anyLogin);
    expectError(over, 429, 'RATE_LIMITED');
    expect(over.json().message).toBe('Too many login attempts; retry later');
  });

  it('a malformed request is refused before it is counted', async () => {
    const tenant = await h.newTenant();
    for (let i = 0; i < 40; i++) expectError(await post(tenant, '/auth/email/verify-otp', { email: 'nobody@example.com' }), 400, 'VALIDATION_FAILED');
    for (let i = 0; i < 30; i++) expect((await post(tenant, '/auth/email/verify-otp', { email: 'nobody@example.com', code: '123456' })).statusCode).toBe(400);
    expectError(await post(tenant, '/auth/email/verify-otp', { email: 'nobody@example.com', code: '123456' }), 429, 'RATE_LIMITED');
  });
});
