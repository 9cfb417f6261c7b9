import { beforeAll, describe, expect, it } from 'vitest';
import type { Harness } from '../helpers/harness.js';
import { codeIn, linkIn, type MailHarness } from '../helpers/mailbox.js';
import { emailFlowsFixture } from './email-flows.fixture.js';
import { expectError } from '../helpers/security.js';

const fx = emailFlowsFixture();
const { t, register, verified, post, login, account } = fx;
let h: Harness;
let box: MailHarness['box'];
beforeAll(() => ({ h, box } = fx.env));

describe('email verification', () => {
  it('codes expire after 10 minutes and verification tokens after 24 hours (injected clock)', async () => {
    await register('expire@example.com');
    const mail = await box.next('expire@example.com', /Confirm/);
    h.clock.advance(10 * 60_000 + 1000);
    expectError(await h.inject({ method: 'POST', url: '/auth/email/verify-otp', headers: t(), payload: { email: 'expire@example.com', code: codeIn(mail) } }), 400, 'CODE_INVALID');
    h.clock.advance(24 * 3600_000);
    expectError(await h.inject({ method: 'POST', url: '/auth/email/verify-token', headers: t(), payload: { token: linkIn(mail).searchParams.get('token')! } }), 400, 'ONE_TIME_TOKEN_INVALID');
    expect(await verified('expire@example.com')).toBe(false);
  });

  it('five wrong codes void the code; a new code does not reset the count', async () => {
    await register('brute@example.com');
    const first = codeIn(await box.next('brute@example.com', /Confirm/));
    const wrong = first === '000000' ? '111111' : '000000';
    for (let i = 0; i < 4; i++) {
      expectError(await h.inject({ method: 'POST', url: '/auth/email/verify-otp', headers: t(), payload: { email: 'brute@example.com', code: wrong } }), 400, 'CODE_INVALID');
    }
    // Ask for a new code (after the 60-second gap): the four failures still count.
    h.clock.advance(61_000);
    await h.inject({ method: 'POST', url: '/auth/email/resend-otp', headers: t(), payload: { email: 'brute@example.com' } });
    const second = codeIn(await box.next('brute@example.com', /Confirm/));
    const wrong2 = second === '000000' ? '111111' : '000000';
    expectError(await h.inject({ method: 'POST', url: '/auth/email/verify-otp', headers: t(), payload: { email: 'brute@example.com', code: wrong2 } }), 400, 'CODE_INVALID');
    // Fifth failure reached: even the right code is refused now.
    expectError(await h.inject({ method: 'POST', url: '/auth/email/verify-otp', headers: t(), payload: { email: 'brute@example.com', code: second } }), 400, 'CODE_INVALID');
    expect(await verified('brute@example.com')).toBe(false);
  });
});

describe('resend routes', () => {
  it('caps mail per address silently: at most one a minute and five in ten minutes', async () => {
    await register('cap@example.com');
    await box.next('cap@example.com', /Confirm/);
    for (let i = 0; i < 3; i++) {
      const res = await h.inject({ method: 'POST', url: '/auth/email/resend-otp', headers: t(), payload: { email: 'cap@example.com' } });
      expect(res.statusCode).toBe(201);
    }
    expect(await box.count('cap@example.com')).toBe(1);
    for (let i = 0; i < 6; i++) {
      h.clock.advance(61_000);
      await h.inject({ method: 'POST', url: '/auth/email/resend-otp', headers: t(), payload: { email: 'cap@example.com' } });
      await box.count('cap@example.com'); // let the queued work run at this clock time
    }
    expect(await box.count('cap@example.com')).toBe(5);
  });

  it('400 on malformed bodies; 401 without a tenant', async () => {
    expectError(await h.inject({ method: 'POST', url: '/auth/email/resend-otp', headers: t(), payload: { email: 'x' } }), 400, 'VALIDATION_FAILED');
    expectError(await h.inject({ method: 'POST', url: '/auth/email/verify-otp', headers: t(), payload: { email: 'a@b.co', code: '12' } }), 400, 'VALIDATION_FAILED');
    expectError(await h.inject({ method: 'POST', url: '/auth/email/resend-otp', payload: { email: 'a@b.co' } }), 401, 'TENANT_REQUIRED');
  });
});

describe('password reset by link', () => {
  it('reset tokens expire after 30 minutes; a weak password is refused without consuming the token', async () => {
    await account('late@example.com');
    await post('/auth/forgot-password', { email: 'late@example.com' });
    const token = linkIn(await box.next('late@example.com', /Reset/)).searchParams.get('token')!;
    expectError(await h.inject({ method: 'PUT', url: `/auth/reset-password?token=${token}`, headers: t(), payload: { password: 'password1' } }), 400, 'PASSWORD_POLICY');
    expect((await post('/auth/token-status', { token })).json()).toBe(true);
    h.clock.advance(30 * 60_000 + 1000);
    expectError(await post('/auth/token-status', { token }), 400, 'ONE_TIME_TOKEN_INVALID');
  });

  it('verify-otp: a wrong code is 400, an unknown email is the same 400', async () => {
    expectError(await post('/auth/forgot-password/verify-otp', { email: 'ghost@example.com', code: '123456' }), 400, 'CODE_INVALID');
    await account('wrongcode@example.com');
    await post('/auth/forgot-password/request-otp', { email: 'wrongcode@example.com' });
    const code = codeIn(await box.next('wrongcode@example.com', /reset code/));
    expectError(await post('/auth/forgot-password/verify-otp', { email: 'wrongcode@example.com', code: code === '999999' ? '000000' : '999999' }), 400, 'CODE_INVALID');
    expectError(await h.inject({ method: 'PUT', url: '/auth/reset-password', headers: t(), payload: { password: 'whatever passphrase' } }), 400, 'VALIDATION_FAILED');
  });
});

describe('two-factor authentication by email', () => {
  it('the challenge expires after 5 minutes; ten failed codes lock 2FA login for 15 minutes (429)', async () => {
    await account('lock@example.com');
    const auth = h.bearerHeaders((await login('lock@example.com', 'the original passphrase')).json().accessToken);
    await post('/auth/2fa/setup', { method: 'email' }, auth);
    await post('/auth/2fa/enable', { code: codeIn(await box.next('lock@example.com', /setup/)) }, auth);

    const stale = (await login('lock@example.com', 'the original passphrase')).json().challengeToken;
    const staleCode = codeIn(await box.next('lock@example.com', /sign-in/));
    h.clock.advance(5 * 60_000 + 1000);
    expectError(await post('/auth/2fa/verify', { challengeToken: stale, code: staleCode }), 401, 'CHALLENGE_INVALID');

    let last;
    for (let i = 0; i < 10; i++) {
      const challengeToken = (await login('lock@example.com', 'the original passphrase')).json().challengeToken;
      const code = codeIn(await box.next('lock@example.com', /sign-in/));
      last = await post('/auth/2fa/verify', { challengeToken, code: code === '000000' ? '111111' : '000000' });
    }
    expectError(last!, 429, 'TWO_FACTOR_LOCKED');
    expect(Number(last!.headers['retry-after'])).toBeGreaterThan(0);
    const challengeToken = (await login('lock@example.com', 'the original passphrase')).json().challengeToken;
    const code = codeIn(await box.next('lock@example.com', /sign-in/));
    expectError(await post('/auth/2fa/verify', { challengeToken, code }), 429, 'TWO_FACTOR_LOCKED');
    h.clock.advance(15 * 60_000 + 1000);
    const retry = (await login('lock@example.com', 'the original passphrase')).json().challengeToken;
    const ok = await post('/auth/2fa/verify', { challengeToken: retry, code: codeIn(await box.next('lock@example.com', /sign-in/)) });
    expect(ok.statusCode).toBe(201);
  });
});

describe('login throttling', () => {
  it('ten failures lock the account for the window (429 with Retry-After), for the right password too', async () => {
    await account('throttle@example.com');
    for (let i = 0; i < 10; i++) expectError(await login('throttle@example.com', 'wrong passphrase!'), 401, 'INVALID_CREDENTIALS');
    const locked = await login('throttle@example.com', 'the original passphrase');
    expectError(locked, 429, 'RATE_LIMITED');
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('concurrent guesses count before the password is checked: of 25 at once, at most 10 are tried', async () => {
    h.clock.advance(61_000); // a fresh per-address window: 26 logins follow
    await account('burst@example.com');
    const answers = await Promise.all(Array.from({ length: 25 }, () => login('burst@example.com', 'wrong passphrase!')));
    const statuses = answers.map((a) => a.statusCode);
    expect(statuses.filter((s) => s === 401)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(15);
    expectError(await login('burst@example.com', 'the original passphrase'), 429, 'RATE_LIMITED');
  });

  it('a success clears the count: nine failures, a login, then ten more failures before the lock', async () => {
    h.clock.advance(61_000); // a fresh per-address window: 21 logins follow
    await account('reset-count@example.com');
    for (let i = 0; i < 9; i++) expectError(await login('reset-count@example.com', 'wrong passphrase!'), 401, 'INVALID_CREDENTIALS');
    expect((await login('reset-count@example.com', 'the original passphrase')).statusCode).toBe(201);
    for (let i = 0; i < 10; i++) expectError(await login('reset-count@example.com', 'wrong passphrase!'), 401, 'INVALID_CREDENTIALS');
    expectError(await login('reset-count@example.com', 'the original passphrase'), 429, 'RATE_LIMITED');
  });
});
