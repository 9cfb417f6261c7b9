import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Harness } from '../helpers/harness.js';
import { codeIn, linkIn, startMailHarness, type MailHarness } from '../helpers/mailbox.js';
import { outbox } from '../helpers/outbox.js';
import { expectError } from '../helpers/security.js';

let h: Harness;
let box: MailHarness['box'];
let env: MailHarness;
beforeAll(async () => {
  env = await startMailHarness();
  ({ h, box } = env);
});
afterAll(async () => env.close());

const t = () => ({ 'x-tenant-id': h.tenant.tenantId });
const post = (url: string, payload: object, headers: Record<string, string> = t()) => h.inject({ method: 'POST', url, headers, payload });
const login = (email: string, password: string) => post('/auth/login', { email, password });
async function account(email: string, password = 'the original passphrase') {
  await post('/auth/email', { email, password });
  await box.next(email, /Confirm/);
}

describe('password reset by link', () => {
  it('mails a link to a page; the POST sets the password, consumes the token and revokes every session', async () => {
    await account('reset@example.com');
    const session = (await login('reset@example.com', 'the original passphrase')).json();
    const generic = await post('/auth/forgot-password', { email: 'reset@example.com' });
    const ghost = await post('/auth/forgot-password', { email: 'ghost@example.com' });
    expect(generic.statusCode).toBe(201);
    expect(ghost.json()).toEqual(generic.json());
    const link = linkIn(await box.next('reset@example.com', /Reset your password/));
    const token = link.searchParams.get('token')!;
    expect((await h.inject({ method: 'GET', url: link.pathname + link.search })).body).toContain('type="password"');
    expect((await post('/auth/token-status', { token })).json()).toBe(true);

    const res = await h.inject({ method: 'PUT', url: `/auth/reset-password?token=${encodeURIComponent(token)}`, headers: t(), payload: { password: 'a brand new passphrase' } });
    expect(res.statusCode).toBe(200);
    expectError(await login('reset@example.com', 'the original passphrase'), 401, 'INVALID_CREDENTIALS');
    expect((await login('reset@example.com', 'a brand new passphrase')).statusCode).toBe(201);
    // Old sessions: refresh and access both dead.
    expectError(await post('/auth/refresh', { refreshToken: session.refreshToken }), 401, 'REFRESH_TOKEN_INVALID');
    expectError(await h.inject({ method: 'GET', url: '/users/me', headers: h.bearerHeaders(session.accessToken) }), 401, 'TOKEN_INVALID');
    // Single use.
    expectError(await post('/auth/token-status', { token }), 400, 'TOKEN_INVALID');
    expectError(await h.inject({ method: 'PUT', url: `/auth/reset-password?token=${token}`, headers: t(), payload: { password: 'yet another passphrase' } }), 400, 'TOKEN_INVALID');
    expect(await box.count('ghost@example.com')).toBe(0);
  });

  it('reset tokens expire after 30 minutes; a weak password is refused without consuming the token', async () => {
    await account('late@example.com');
    await post('/auth/forgot-password', { email: 'late@example.com' });
    const token = linkIn(await box.next('late@example.com', /Reset/)).searchParams.get('token')!;
    expectError(await h.inject({ method: 'PUT', url: `/auth/reset-password?token=${token}`, headers: t(), payload: { password: 'password1' } }), 400, 'PASSWORD_POLICY');
    expect((await post('/auth/token-status', { token })).json()).toBe(true);
    h.clock.advance(30 * 60_000 + 1000);
    expectError(await post('/auth/token-status', { token }), 400, 'TOKEN_INVALID');
  });

  it('a user created without a password sets one through the reset flow', async () => {
    await h.createUser(undefined, 'admin-made@example.com');
    await post('/auth/forgot-password/request-otp', { email: 'admin-made@example.com' });
    const code = codeIn(await box.next('admin-made@example.com', /reset code/));
    const exchanged = await post('/auth/forgot-password/verify-otp', { email: 'admin-made@example.com', code });
    expect(exchanged.statusCode).toBe(201);
    expect(exchanged.json()).toMatchObject({ resetToken: expect.any(String), expiresIn: 600 });
    const res = await h.inject({ method: 'PUT', url: `/auth/reset-password?token=${exchanged.json().resetToken}`, headers: t(), payload: { password: 'first ever passphrase' } });
    expect(res.statusCode).toBe(200);
    expect((await login('admin-made@example.com', 'first ever passphrase')).statusCode).toBe(201);
    // The reset proved control of the mailbox: verified, with its outbox event.
    const user = await h.container.users.findRowByEmail(h.tenant.tenantId, 'admin-made@example.com');
    expect(user?.emailVerified).toBe(true);
    const events = (await outbox(h, undefined, 'user.email_verified')).filter((e) => (e.payload as { userId?: string }).userId === user?.id);
    expect(events).toHaveLength(1);
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
  it('setup mails a code, enable turns it on, login then needs the mailed code, disable needs the password', async () => {
    await account('twofa@example.com');
    const pair = (await login('twofa@example.com', 'the original passphrase')).json();
    const auth = h.bearerHeaders(pair.accessToken);
    expect((await h.inject({ method: 'GET', url: '/auth/2fa/status', headers: auth })).json()).toMatchObject({ enabled: false, method: null });
    expect((await post('/auth/2fa/setup', { method: 'email' }, auth)).statusCode).toBe(201);
    const setupCode = codeIn(await box.next('twofa@example.com', /two-factor setup/));
    expectError(await post('/auth/2fa/enable', { code: setupCode === '000000' ? '111111' : '000000' }, auth), 400, 'CODE_INVALID');
    const enabled = await post('/auth/2fa/enable', { code: setupCode }, auth);
    expect(enabled.statusCode).toBe(201);
    expect(enabled.json()).toMatchObject({ enabled: true, method: 'email' });
    expectError(await post('/auth/2fa/setup', { method: 'email' }, auth), 409, 'TWO_FACTOR_ALREADY_ENABLED');

    const first = await login('twofa@example.com', 'the original passphrase');
    expect(first.statusCode).toBe(201);
    expect(first.json()).toEqual({ twoFactorRequired: true, challengeToken: expect.any(String) });
    const { challengeToken } = first.json();
    // The challenge token is not an access token.
    expectError(await h.inject({ method: 'GET', url: '/users/me', headers: h.bearerHeaders(challengeToken) }), 401, 'TOKEN_INVALID');
    const code = codeIn(await box.next('twofa@example.com', /sign-in code/));
    const second = await post('/auth/2fa/verify', { challengeToken, code });
    expect(second.statusCode).toBe(201);
    expect((await h.inject({ method: 'GET', url: '/users/me', headers: h.bearerHeaders(second.json().accessToken) })).statusCode).toBe(200);
    // Single use.
    expectError(await post('/auth/2fa/verify', { challengeToken, code }), 401, 'CHALLENGE_INVALID');

    expectError(await post('/auth/2fa/disable', { password: 'not my passphrase' }, auth), 403, 'PASSWORD_INCORRECT');
    const off = await post('/auth/2fa/disable', { password: 'the original passphrase' }, auth);
    expect(off.json()).toMatchObject({ enabled: false });
    expect((await login('twofa@example.com', 'the original passphrase')).json()).toHaveProperty('accessToken');
    expectError(await post('/auth/2fa/disable', { password: 'the original passphrase' }, auth), 409, 'TWO_FACTOR_NOT_ENABLED');
  });

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

  it('2FA routes need a bearer: 401 without, 403 with an API key; 400 on a bad method', async () => {
    expectError(await h.inject({ method: 'GET', url: '/auth/2fa/status', headers: t() }), 401, 'CREDENTIALS_REQUIRED');
    expectError(await h.inject({ method: 'GET', url: '/auth/2fa/status', headers: h.keyHeaders() }), 403, 'FORBIDDEN');
    const userId = await h.createUser();
    expectError(await post('/auth/2fa/setup', { method: 'sms' }, h.bearerHeaders(await h.tokenFor(userId))), 400, 'VALIDATION_FAILED');
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
    for (const secret of secrets) expect(text).not.toContain(secret);
  });
});
