import { beforeAll, describe, expect, it } from 'vitest';
import type { Harness } from '../helpers/harness.js';
import { codeIn, type MailHarness } from '../helpers/mailbox.js';
import { auditEvents } from '../helpers/read.js';
import { expectError } from '../helpers/security.js';
import { emailFlowsFixture } from './email-flows.fixture.js';
import { totpAt } from './totp.fixture.js';

const fx = emailFlowsFixture();
const { post, login, account } = fx;
let h: Harness;
let box: MailHarness['box'];
beforeAll(() => ({ h, box } = fx.env));

const PASSWORD = 'the original passphrase';
const later = (ms: number) => new Date(h.clock.now().getTime() + ms);

/** An account with TOTP on: its secret, recovery codes and a bearer. */
async function totpAccount(email: string) {
  await account(email);
  const auth = h.bearerHeaders((await login(email, PASSWORD)).json().accessToken);
  const setup = await post('/auth/2fa/setup', { method: 'totp' }, auth);
  expect(setup.statusCode).toBe(201);
  const { secret } = setup.json();
  const enabled = await post('/auth/2fa/enable', { code: totpAt(secret, h.clock.now()) }, auth);
  expect(enabled.statusCode).toBe(201);
  return { secret: secret as string, recoveryCodes: enabled.json().recoveryCodes as string[], auth };
}

const challenge = async (email: string) => {
  const res = await login(email, PASSWORD);
  expect(res.json()).toEqual({ twoFactorRequired: true, challengeToken: expect.any(String), method: 'totp' });
  return res.json().challengeToken as string;
};

describe('the test authenticator', () => {
  it('matches the RFC 6238 SHA-1 test vectors', () => {
    const secret = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ'; // "12345678901234567890"
    expect(totpAt(secret, new Date(59_000))).toBe('287082');
    expect(totpAt(secret, new Date(1111111109_000))).toBe('081804');
    expect(totpAt(secret, new Date(20000000000_000))).toBe('353130');
  });
});

describe('TOTP two-factor authentication', () => {
  it('setup gives the key, URI and QR code; enable needs a current code; login then asks for the app code', async () => {
    await account('totp@example.com');
    const auth = h.bearerHeaders((await login('totp@example.com', PASSWORD)).json().accessToken);
    const setup = await post('/auth/2fa/setup', { method: 'totp' }, auth);
    expect(setup.statusCode).toBe(201);
    const body = setup.json();
    expect(body).toMatchObject({ method: 'totp', secret: expect.stringMatching(/^[A-Z2-7]{32}$/), qrCodeDataUrl: expect.stringMatching(/^data:image\/svg\+xml;base64,/) });
    const uri = new URL(body.otpauthUrl);
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.host).toBe('totp');
    expect(decodeURIComponent(uri.pathname)).toContain('totp@example.com');
    expect(uri.searchParams.get('secret')).toBe(body.secret);
    expect(uri.searchParams.get('issuer')).toBe((await h.container.tenants.findTenant(h.tenant.tenantId))!.name);
    expect(uri.searchParams.get('algorithm')).toBe('SHA1');
    expect(uri.searchParams.get('digits')).toBe('6');
    expect(uri.searchParams.get('period')).toBe('30');
    expect(Buffer.from(body.qrCodeDataUrl.split(',')[1], 'base64').toString()).toContain('<svg');
    // Not on until confirmed.
    expect((await h.inject({ method: 'GET', url: '/auth/2fa/status', headers: auth })).json()).toMatchObject({ enabled: false, method: null });
    expect((await login('totp@example.com', PASSWORD)).json()).toHaveProperty('accessToken');
    // A code from the wrong time (five minutes off) does not confirm.
    expectError(await post('/auth/2fa/enable', { code: totpAt(body.secret, later(-5 * 60_000)) }, auth), 400, 'CODE_INVALID');
    const enabled = await post('/auth/2fa/enable', { code: totpAt(body.secret, h.clock.now()) }, auth);
    expect(enabled.statusCode).toBe(201);
    expect(enabled.json()).toMatchObject({ enabled: true, method: 'totp', recoveryCodesRemaining: 10 });
    const codes: string[] = enabled.json().recoveryCodes;
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const c of codes) expect(c).toMatch(/^[a-z2-7]{5}-[a-z2-7]{5}$/);
    // Shown once: the status has the count only.
    const status = (await h.inject({ method: 'GET', url: '/auth/2fa/status', headers: auth })).json();
    expect(status).toEqual({ enabled: true, method: 'totp', enabledAt: expect.any(String), recoveryCodesRemaining: 10 });
    expectError(await post('/auth/2fa/setup', { method: 'totp' }, auth), 409, 'TWO_FACTOR_ALREADY_ENABLED');

    const mailsBefore = await box.count('totp@example.com');
    const challengeToken = await challenge('totp@example.com');
    expect(await box.count('totp@example.com')).toBe(mailsBefore); // nothing mailed for TOTP
    // The step that enabled is spent: its code does not sign in.
    expectError(await post('/auth/2fa/verify', { challengeToken, code: totpAt(body.secret, h.clock.now()) }), 400, 'CODE_INVALID');
    h.clock.advance(30_000);
    const ok = await post('/auth/2fa/verify', { challengeToken, code: totpAt(body.secret, h.clock.now()) });
    expect(ok.statusCode).toBe(201);
    expect((await h.inject({ method: 'GET', url: '/users/me', headers: h.bearerHeaders(ok.json().accessToken) })).statusCode).toBe(200);
    expectError(await post('/auth/2fa/verify', { challengeToken, code: totpAt(body.secret, h.clock.now()) }), 401, 'CHALLENGE_INVALID');
  });

  it('a used time step cannot be replayed; one step of drift either way is accepted once', async () => {
    const { secret } = await totpAccount('replay@example.com');
    h.clock.advance(30_000);
    const code = totpAt(secret, h.clock.now());
    expect((await post('/auth/2fa/verify', { challengeToken: await challenge('replay@example.com'), code })).statusCode).toBe(201);
    // The same code again, on a new challenge, within its step and the next: refused.
    expectError(await post('/auth/2fa/verify', { challengeToken: await challenge('replay@example.com'), code }), 400, 'CODE_INVALID');
    h.clock.advance(30_000);
    expectError(await post('/auth/2fa/verify', { challengeToken: await challenge('replay@example.com'), code }), 400, 'CODE_INVALID');
    // The next step's code (the phone's clock a little ahead) is accepted; then the current one is older and refused.
    const ahead = totpAt(secret, later(30_000));
    expect((await post('/auth/2fa/verify', { challengeToken: await challenge('replay@example.com'), code: ahead })).statusCode).toBe(201);
    expectError(await post('/auth/2fa/verify', { challengeToken: await challenge('replay@example.com'), code: totpAt(secret, h.clock.now()) }), 400, 'CODE_INVALID');
    // Two steps ahead is outside the window.
    expectError(await post('/auth/2fa/verify', { challengeToken: await challenge('replay@example.com'), code: totpAt(secret, later(60_000)) }), 400, 'CODE_INVALID');
    // Concurrent uses of one fresh step: exactly one wins.
    h.clock.advance(60_000);
    const fresh = totpAt(secret, h.clock.now());
    const [a, b] = await Promise.all([challenge('replay@example.com'), challenge('replay@example.com')]);
    const answers = await Promise.all([post('/auth/2fa/verify', { challengeToken: a, code: fresh }), post('/auth/2fa/verify', { challengeToken: b, code: fresh })]);
    expect(answers.map((r) => r.statusCode).sort()).toEqual([201, 400]);
  });

  it('wrong codes count against the same limit as email codes: the tenth locks 2FA login (429), the right code too', async () => {
    const { secret } = await totpAccount('wrong@example.com');
    h.clock.advance(30_000);
    const right = totpAt(secret, h.clock.now());
    const wrong = right === '000000' ? '111111' : '000000';
    const challengeToken = await challenge('wrong@example.com');
    for (let i = 0; i < 9; i++) expectError(await post('/auth/2fa/verify', { challengeToken, code: wrong }), 400, 'CODE_INVALID');
    // A wrong recovery code counts too.
    expectError(await post('/auth/2fa/verify', { challengeToken, code: 'aaaaa-aaaaa' }), 429, 'TWO_FACTOR_LOCKED');
    expectError(await post('/auth/2fa/verify', { challengeToken, code: right }), 429, 'TWO_FACTOR_LOCKED');
    const failed = await auditEvents(h, { type: 'login.second_factor_failed', userId: (await h.container.users.findRowByEmail(h.tenant.tenantId, 'wrong@example.com'))!.id });
    expect(failed.total).toBe(10);
    h.clock.advance(15 * 60_000 + 1000);
    const retry = await challenge('wrong@example.com');
    expect((await post('/auth/2fa/verify', { challengeToken: retry, code: totpAt(secret, h.clock.now()) })).statusCode).toBe(201);
  });

  it('five wrong codes void a TOTP setup, as they void a mailed setup code', async () => {
    await account('setup-limit@example.com');
    const auth = h.bearerHeaders((await login('setup-limit@example.com', PASSWORD)).json().accessToken);
    const { secret } = (await post('/auth/2fa/setup', { method: 'totp' }, auth)).json();
    const right = totpAt(secret, h.clock.now());
    const wrong = right === '000000' ? '111111' : '000000';
    for (let i = 0; i < 5; i++) expectError(await post('/auth/2fa/enable', { code: wrong, method: 'totp' }, auth), 400, 'CODE_INVALID');
    expectError(await post('/auth/2fa/enable', { code: right, method: 'totp' }, auth), 400, 'CODE_INVALID');
    expect((await h.inject({ method: 'GET', url: '/auth/2fa/status', headers: auth })).json()).toMatchObject({ enabled: false });
  });

  it('recovery codes sign in once each, are audited and mailed; new ones need the password and void the old', async () => {
    const { recoveryCodes, auth } = await totpAccount('recovery@example.com');
    const userId = (await h.container.users.findRowByEmail(h.tenant.tenantId, 'recovery@example.com'))!.id;
    // Typed in capitals without the dash: the same code.
    const typed = recoveryCodes[0]!.replace('-', '').toUpperCase();
    const ok = await post('/auth/2fa/verify', { challengeToken: await challenge('recovery@example.com'), code: typed });
    expect(ok.statusCode).toBe(201);
    const used = await auditEvents(h, { type: '2fa.recovery_code_used', userId });
    expect(used.data).toHaveLength(1);
    expect(used.data[0]).toMatchObject({ subjectUserId: userId, details: { remaining: 9 } });
    const success = await auditEvents(h, { type: 'login.succeeded', userId });
    expect(success.data[0]).toMatchObject({ details: { secondFactor: 'recovery_code' } });
    const mail = await box.next('recovery@example.com', /recovery code was used/);
    expect(mail.text).toContain('9 unused codes remain');
    // Single use.
    expectError(await post('/auth/2fa/verify', { challengeToken: await challenge('recovery@example.com'), code: recoveryCodes[0]! }), 400, 'CODE_INVALID');
    expect((await h.inject({ method: 'GET', url: '/auth/2fa/status', headers: auth })).json()).toMatchObject({ recoveryCodesRemaining: 9 });

    expectError(await post('/auth/2fa/recovery-codes', { password: 'not my passphrase' }, auth), 403, 'PASSWORD_INCORRECT');
    const renewed = await post('/auth/2fa/recovery-codes', { password: PASSWORD }, auth);
    expect(renewed.statusCode).toBe(201);
    const fresh: string[] = renewed.json().recoveryCodes;
    expect(fresh).toHaveLength(10);
    expect(fresh.filter((c) => recoveryCodes.includes(c))).toEqual([]);
    expect((await auditEvents(h, { type: '2fa.recovery_codes_regenerated', userId })).data).toHaveLength(1);
    expectError(await post('/auth/2fa/verify', { challengeToken: await challenge('recovery@example.com'), code: recoveryCodes[1]! }), 400, 'CODE_INVALID');
    expect((await post('/auth/2fa/verify', { challengeToken: await challenge('recovery@example.com'), code: fresh[5]! })).statusCode).toBe(201);
    await box.next('recovery@example.com', /recovery code was used/);
  });

  it('switching to email replaces TOTP (password needed), and back; disable ends either', async () => {
    const { secret, recoveryCodes, auth } = await totpAccount('switch@example.com');
    const userId = (await h.container.users.findRowByEmail(h.tenant.tenantId, 'switch@example.com'))!.id;
    expectError(await post('/auth/2fa/setup', { method: 'email' }, auth), 403, 'PASSWORD_INCORRECT');
    expectError(await post('/auth/2fa/setup', { method: 'email', password: 'not my passphrase' }, auth), 403, 'PASSWORD_INCORRECT');
    expect((await post('/auth/2fa/setup', { method: 'email', password: PASSWORD }, auth)).statusCode).toBe(201);
    // TOTP stays on until the mailed code confirms.
    expect((await h.inject({ method: 'GET', url: '/auth/2fa/status', headers: auth })).json()).toMatchObject({ method: 'totp' });
    const setupCode = codeIn(await box.next('switch@example.com', /two-factor setup/));
    const enabled = await post('/auth/2fa/enable', { code: setupCode }, auth);
    expect(enabled.json()).toEqual({ enabled: true, method: 'email', enabledAt: expect.any(String) });
    expect((await auditEvents(h, { type: '2fa.enabled', userId })).data[0]).toMatchObject({ details: { method: 'email', replaced: 'totp' } });
    // Login is the spec's email flow again: no TOTP, no recovery codes.
    const first = await login('switch@example.com', PASSWORD);
    expect(first.json()).toEqual({ twoFactorRequired: true, challengeToken: expect.any(String) });
    h.clock.advance(30_000);
    expectError(await post('/auth/2fa/verify', { challengeToken: first.json().challengeToken, code: totpAt(secret, h.clock.now()) }), 400, 'CODE_INVALID');
    expectError(await post('/auth/2fa/verify', { challengeToken: first.json().challengeToken, code: recoveryCodes[0]! }), 400, 'CODE_INVALID');
    const mailed = codeIn(await box.next('switch@example.com', /sign-in code/));
    expect((await post('/auth/2fa/verify', { challengeToken: first.json().challengeToken, code: mailed })).statusCode).toBe(201);
    expectError(await post('/auth/2fa/recovery-codes', { password: PASSWORD }, auth), 409, 'TWO_FACTOR_NOT_ENABLED');

    // And back to TOTP: a new key; the old one is dead.
    expectError(await post('/auth/2fa/setup', { method: 'totp' }, auth), 403, 'PASSWORD_INCORRECT');
    const again = (await post('/auth/2fa/setup', { method: 'totp', password: PASSWORD }, auth)).json();
    expect(again.secret).not.toBe(secret);
    const back = await post('/auth/2fa/enable', { code: totpAt(again.secret, h.clock.now()) }, auth);
    expect(back.json()).toMatchObject({ method: 'totp', recoveryCodesRemaining: 10 });
    const before = await box.count('switch@example.com');
    const challengeToken = await challenge('switch@example.com');
    expect(await box.count('switch@example.com')).toBe(before);
    h.clock.advance(30_000);
    expectError(await post('/auth/2fa/verify', { challengeToken, code: totpAt(secret, h.clock.now()) }), 400, 'CODE_INVALID');
    expect((await post('/auth/2fa/verify', { challengeToken, code: totpAt(again.secret, h.clock.now()) })).statusCode).toBe(201);

    const off = await post('/auth/2fa/disable', { password: PASSWORD }, auth);
    expect(off.json()).toEqual({ enabled: false, method: null, enabledAt: null });
    expect((await login('switch@example.com', PASSWORD)).json()).toHaveProperty('accessToken');
  });
});
