import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Harness } from '../helpers/harness.js';
import { codeIn, linkIn, startMailHarness, type MailHarness } from '../helpers/mailbox.js';
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
const register = (email: string) => h.inject({ method: 'POST', url: '/auth/email', headers: t(), payload: { email, password: 'a long enough passphrase' } });
const verified = async (email: string) => (await h.container.users.findRowByEmail(h.tenant.tenantId, email))!.emailVerified;

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
    expectError(await h.inject({ method: 'POST', url: '/auth/email/verify-token', headers: t(), payload: { token: link.searchParams.get('token')! } }), 400, 'TOKEN_INVALID');
  });

  it('POST /auth/email/verify-token verifies with the token from the mail', async () => {
    await register('token@example.com');
    const token = linkIn(await box.next('token@example.com', /Confirm/)).searchParams.get('token')!;
    const res = await h.inject({ method: 'POST', url: '/auth/email/verify-token', headers: t(), payload: { token } });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({ message: 'Email verified', emailVerified: true });
    expect(await verified('token@example.com')).toBe(true);
  });

  it('POST /auth/email/verify-otp verifies with the 6-digit code', async () => {
    await register('otp@example.com');
    const code = codeIn(await box.next('otp@example.com', /Confirm/));
    const res = await h.inject({ method: 'POST', url: '/auth/email/verify-otp', headers: t(), payload: { email: 'OTP@example.com', code } });
    expect(res.statusCode).toBe(201);
    expect(await verified('otp@example.com')).toBe(true);
  });

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

  it('codes expire after 10 minutes and verification tokens after 24 hours (injected clock)', async () => {
    await register('expire@example.com');
    const mail = await box.next('expire@example.com', /Confirm/);
    h.clock.advance(10 * 60_000 + 1000);
    expectError(await h.inject({ method: 'POST', url: '/auth/email/verify-otp', headers: t(), payload: { email: 'expire@example.com', code: codeIn(mail) } }), 400, 'CODE_INVALID');
    h.clock.advance(24 * 3600_000);
    expectError(await h.inject({ method: 'POST', url: '/auth/email/verify-token', headers: t(), payload: { token: linkIn(mail).searchParams.get('token')! } }), 400, 'TOKEN_INVALID');
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

describe("the tenant's app URL", () => {
  it('when configured, mail links open the app instead of Bastion pages', async () => {
    const other = await h.newTenant();
    await h.container.tenants.setAppUrl(other.tenantId, 'https://app.example.com/auth/');
    await h.inject({ method: 'POST', url: '/auth/email', headers: { 'x-tenant-id': other.tenantId }, payload: { email: 'app@example.com', password: 'a long enough passphrase' } });
    const link = linkIn(await box.next('app@example.com', /Confirm/));
    expect(link.origin + link.pathname).toBe('https://app.example.com/auth/verify-email');
    expect(link.searchParams.get('tenant')).toBe(other.tenantId);
    await expect(h.container.tenants.setAppUrl(other.tenantId, 'javascript:alert(1)')).rejects.toMatchObject({ code: 'TENANT_APP_URL_INVALID' });
  });
});
