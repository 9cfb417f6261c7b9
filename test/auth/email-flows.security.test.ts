import { beforeAll, describe, expect, it } from 'vitest';
import type { Harness } from '../helpers/harness.js';
import { codeIn, linkIn, type MailHarness } from '../helpers/mailbox.js';
import { emailFlowsFixture } from './email-flows.fixture.js';
import { expectError, expectSecretAbsent } from '../helpers/security.js';

const fx = emailFlowsFixture();
const { t, register, verified, post, login, account } = fx;
let h: Harness;
let box: MailHarness['box'];
beforeAll(() => ({ h, box } = fx.env));

describe('email verification', () => {
  it('legacy GET /auth/email/verify takes the mailed token as bearer; an ordinary access token cannot verify itself', async () => {
    await register('legacy@example.com');
    const token = linkIn(await box.next('legacy@example.com', /Confirm/)).searchParams.get('token')!;
    const user = await h.container.users.findRowByEmail(h.tenant.tenantId, 'legacy@example.com');
    const access = await h.tokenFor(user!.id);
    expectError(await h.inject({ method: 'GET', url: '/auth/email/verify?email=legacy@example.com', headers: h.bearerHeaders(access) }), 401, 'TOKEN_INVALID');
    expectError(await h.inject({ method: 'GET', url: '/auth/email/verify?email=legacy@example.com', headers: t() }), 401, 'CREDENTIALS_REQUIRED');
    // The token of another address does not verify this one.
    expectError(await h.inject({ method: 'GET', url: '/auth/email/verify?email=other@example.com', headers: h.bearerHeaders(token) }), 401, 'TOKEN_INVALID');
    expect(await verified('legacy@example.com')).toBe(false);
    const ok = await h.inject({ method: 'GET', url: '/auth/email/verify?email=legacy@example.com', headers: h.bearerHeaders(token) });
    expect(ok.statusCode).toBe(200);
    expect(await verified('legacy@example.com')).toBe(true);
  });
});

describe('resend routes', () => {
  it('answer the same generic message whether or not the account exists, and mail only real accounts', async () => {
    await register('resend@example.com');
    await box.next('resend@example.com', /Confirm/);
    h.clock.advance(61_000);
    for (const url of ['/auth/email/resend-verification', '/auth/email/resend-otp']) {
      const known = await h.inject({ method: 'POST', url, headers: t(), payload: { email: 'resend@example.com' } });
      const unknown = await h.inject({ method: 'POST', url, headers: t(), payload: { email: 'ghost@example.com' } });
      expect(known.statusCode).toBe(201);
      expect(unknown.statusCode).toBe(201);
      expect(unknown.json()).toEqual(known.json());
      h.clock.advance(61_000);
    }
    await box.next('resend@example.com', /Confirm/);
    expect(await box.count('ghost@example.com')).toBe(0);
  });
});

describe('two-factor authentication by email', () => {
  it('2FA routes need a bearer: 401 without, 403 with an API key; 400 on a bad method', async () => {
    expectError(await h.inject({ method: 'GET', url: '/auth/2fa/status', headers: t() }), 401, 'CREDENTIALS_REQUIRED');
    expectError(await h.inject({ method: 'GET', url: '/auth/2fa/status', headers: h.keyHeaders() }), 403, 'FORBIDDEN');
    const userId = await h.createUser();
    expectError(await post('/auth/2fa/setup', { method: 'sms' }, h.bearerHeaders(await h.tokenFor(userId))), 400, 'VALIDATION_FAILED');
  });
});

describe('secrets never reach the logs', () => {
  it('a full flow logs no password, token, code or key', async () => {
    const secrets = [h.tenant.apiKey, 'the original passphrase'];
    await account('logs@example.com');
    const pair = (await login('logs@example.com', 'the original passphrase')).json();
    secrets.push(pair.accessToken, pair.refreshToken);
    const next = (await post('/auth/refresh', { refreshToken: pair.refreshToken })).json();
    secrets.push(next.accessToken, next.refreshToken);
    await post('/auth/forgot-password/request-otp', { email: 'logs@example.com' });
    const code = codeIn(await box.next('logs@example.com', /reset code/));
    const reset = (await post('/auth/forgot-password/verify-otp', { email: 'logs@example.com', code })).json().resetToken;
    secrets.push(code, reset);
    await h.inject({ method: 'PUT', url: `/auth/reset-password?token=${reset}`, headers: t(), payload: { password: 'the new log passphrase' } });
    secrets.push('the new log passphrase');
    await h.inject({ method: 'GET', url: '/users', headers: h.keyHeaders() });
    const text = h.logs.text();
    expect(text).toContain('reset-password');
    for (const secret of secrets) expectSecretAbsent(text, secret);
  });
});
