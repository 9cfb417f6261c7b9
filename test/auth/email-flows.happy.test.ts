import { beforeAll, describe, expect, it } from 'vitest';
import type { Harness } from '../helpers/harness.js';
import { codeIn, linkIn, type MailHarness } from '../helpers/mailbox.js';
import { emailFlowsFixture } from './email-flows.fixture.js';
import { outbox } from '../helpers/outbox.js';
import { expectError } from '../helpers/security.js';

const fx = emailFlowsFixture();
const { t, register, verified, post, login, account } = fx;
let h: Harness;
let box: MailHarness['box'];
beforeAll(() => ({ h, box } = fx.env));

describe('email verification', () => {
  it('registration mails a link and a code; the link opens a page that changes nothing until its form is POSTed', async () => {
    await register('link@example.com');
    const mail = await box.next('link@example.com', /Confirm your email/);
    expect(mail.html).toContain('Confirm my email');
    const link = linkIn(mail);
    expect(link.pathname).toBe('/auth/pages/verify-email');
    // A scanner fetching the link twice consumes nothing.
    for (let i = 0; i < 2; i++) {
      const pageRes = await h.inject({ method: 'GET', url: link.pathname + link.search });
      expect(pageRes.statusCode).toBe(200);
      expect(pageRes.body).toContain('<form method="post"');
    }
    expect(await verified('link@example.com')).toBe(false);
    const confirm = await h.inject({
      method: 'POST',
      url: '/auth/pages/verify-email',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ tenant: link.searchParams.get('tenant')!, token: link.searchParams.get('token')! }).toString(),
    });
    expect(confirm.statusCode).toBe(200);
    expect(confirm.body).toContain('Email confirmed');
    expect(await verified('link@example.com')).toBe(true);
    // Single use.
    expectError(await h.inject({ method: 'POST', url: '/auth/email/verify-token', headers: t(), payload: { token: link.searchParams.get('token')! } }), 400, 'ONE_TIME_TOKEN_INVALID');
  });

  it('POST /auth/email/verify-token verifies with the token from the mail', async () => {
    await register('token@example.com');
    const token = linkIn(await box.next('token@example.com', /Confirm/)).searchParams.get('token')!;
    const res = await h.api(t()).POST('/auth/email/verify-token', { body: { token } });
    expect(res.response.status).toBe(201);
    expect(res.data).toEqual({ message: 'Email verified', emailVerified: true });
    expect(await verified('token@example.com')).toBe(true);
  });

  it('POST /auth/email/verify-otp verifies with the 6-digit code', async () => {
    await register('otp@example.com');
    const code = codeIn(await box.next('otp@example.com', /Confirm/));
    const res = await h.api(t()).POST('/auth/email/verify-otp', { body: { email: 'OTP@example.com', code } });
    expect(res.response.status).toBe(201);
    expect(await verified('otp@example.com')).toBe(true);
  });
});

describe("the tenant's app URL", () => {
  it('when configured, mail links open the app instead of Bastion pages', async () => {
    const other = await h.newTenant();
    await h.container.tenants.setAppUrl(other.tenantId, 'https://app.example.com/auth/');
    await h.api({ 'x-tenant-id': other.tenantId }).POST('/auth/email', { body: { email: 'app@example.com', password: 'a long enough passphrase' } });
    const link = linkIn(await box.next('app@example.com', /Confirm/));
    expect(link.origin + link.pathname).toBe('https://app.example.com/auth/verify-email');
    expect(link.searchParams.get('tenant')).toBe(other.tenantId);
    await expect(h.container.tenants.setAppUrl(other.tenantId, 'javascript:alert(1)')).rejects.toMatchObject({ code: 'TENANT_APP_URL_INVALID' });
  });
});

describe('password reset by link', () => {
  it('mails a link to a page; the POST sets the password, consumes the token and revokes every session', async () => {
    await account('reset@example.com');
    const session = (await login('reset@example.com', 'the original passphrase')).json();
    const generic = await h.api(t()).POST('/auth/forgot-password', { body: { email: 'reset@example.com' } });
    const ghost = await h.api(t()).POST('/auth/forgot-password', { body: { email: 'ghost@example.com' } });
    expect(generic.response.status).toBe(201);
    expect(ghost.data).toEqual(generic.data);
    const link = linkIn(await box.next('reset@example.com', /Reset your password/));
    const token = link.searchParams.get('token')!;
    expect((await h.inject({ method: 'GET', url: link.pathname + link.search })).body).toContain('type="password"');
    expect((await h.api(t()).POST('/auth/token-status', { body: { token } })).data).toBe(true);

    const res = await h.api(t()).PUT('/auth/reset-password', { params: { query: { token } }, body: { password: 'a brand new passphrase' } });
    expect(res.response.status).toBe(200);
    expectError(await login('reset@example.com', 'the original passphrase'), 401, 'INVALID_CREDENTIALS');
    expect((await login('reset@example.com', 'a brand new passphrase')).statusCode).toBe(201);
    // Old sessions: refresh and access both dead.
    expectError(await post('/auth/refresh', { refreshToken: session.refreshToken }), 401, 'REFRESH_TOKEN_INVALID');
    expectError(await h.inject({ method: 'GET', url: '/users/me', headers: h.bearerHeaders(session.accessToken) }), 401, 'TOKEN_INVALID');
    // Single use.
    expectError(await post('/auth/token-status', { token }), 400, 'ONE_TIME_TOKEN_INVALID');
    expectError(await h.inject({ method: 'PUT', url: `/auth/reset-password?token=${token}`, headers: t(), payload: { password: 'yet another passphrase' } }), 400, 'ONE_TIME_TOKEN_INVALID');
    expect(await box.count('ghost@example.com')).toBe(0);
  });

  it('a user created without a password sets one through the reset flow', async () => {
    await h.createUser(undefined, 'admin-made@example.com');
    await h.api(t()).POST('/auth/forgot-password/request-otp', { body: { email: 'admin-made@example.com' } });
    const code = codeIn(await box.next('admin-made@example.com', /reset code/));
    const exchanged = await h.api(t()).POST('/auth/forgot-password/verify-otp', { body: { email: 'admin-made@example.com', code } });
    expect(exchanged.response.status).toBe(201);
    expect(exchanged.data).toMatchObject({ resetToken: expect.any(String), expiresIn: 600 });
    const res = await h.api(t()).PUT('/auth/reset-password', { params: { query: { token: exchanged.data!.resetToken } }, body: { password: 'first ever passphrase' } });
    expect(res.response.status).toBe(200);
    expect((await login('admin-made@example.com', 'first ever passphrase')).statusCode).toBe(201);
    // The reset proved control of the mailbox: verified, with its outbox event.
    const user = await h.container.users.findRowByEmail(h.tenant.tenantId, 'admin-made@example.com');
    expect(user?.emailVerified).toBe(true);
    const events = (await outbox(h, undefined, 'user.email_verified')).filter((e) => (e.payload as { userId?: string }).userId === user?.id);
    expect(events).toHaveLength(1);
  });
});

describe('two-factor authentication by email', () => {
  it('setup mails a code, enable turns it on, login then needs the mailed code, disable needs the password', async () => {
    await account('twofa@example.com');
    const pair = (await login('twofa@example.com', 'the original passphrase')).json();
    const auth = h.bearerHeaders(pair.accessToken);
    expect((await h.api(auth).GET('/auth/2fa/status')).data).toMatchObject({ enabled: false, method: null });
    expect((await h.api(auth).POST('/auth/2fa/setup', { body: { method: 'email' } })).response.status).toBe(201);
    const setupCode = codeIn(await box.next('twofa@example.com', /two-factor setup/));
    expectError(await post('/auth/2fa/enable', { code: setupCode === '000000' ? '111111' : '000000' }, auth), 400, 'CODE_INVALID');
    const enabled = await h.api(auth).POST('/auth/2fa/enable', { body: { code: setupCode } });
    expect(enabled.response.status).toBe(201);
    expect(enabled.data).toMatchObject({ enabled: true, method: 'email' });
    expectError(await post('/auth/2fa/setup', { method: 'email' }, auth), 409, 'TWO_FACTOR_ALREADY_ENABLED');

    const first = await login('twofa@example.com', 'the original passphrase');
    expect(first.statusCode).toBe(201);
    expect(first.json()).toEqual({ twoFactorRequired: true, challengeToken: expect.any(String) });
    const { challengeToken } = first.json();
    // The challenge token is not an access token.
    expectError(await h.inject({ method: 'GET', url: '/users/me', headers: h.bearerHeaders(challengeToken) }), 401, 'TOKEN_INVALID');
    const code = codeIn(await box.next('twofa@example.com', /sign-in code/));
    const second = await h.api(t()).POST('/auth/2fa/verify', { body: { challengeToken, code } });
    expect(second.response.status).toBe(201);
    expect((await h.api(h.bearerHeaders(second.data!.accessToken)).GET('/users/me')).response.status).toBe(200);
    // Single use.
    expectError(await post('/auth/2fa/verify', { challengeToken, code }), 401, 'CHALLENGE_INVALID');

    expectError(await post('/auth/2fa/disable', { password: 'not my passphrase' }, auth), 403, 'PASSWORD_INCORRECT');
    const off = await h.api(auth).POST('/auth/2fa/disable', { body: { password: 'the original passphrase' } });
    expect(off.data).toMatchObject({ enabled: false });
    expect((await login('twofa@example.com', 'the original passphrase')).json()).toHaveProperty('accessToken');
    expectError(await post('/auth/2fa/disable', { password: 'the original passphrase' }, auth), 409, 'TWO_FACTOR_NOT_ENABLED');
  });
});
