import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { credentials, recoveryCodes } from '../../src/modules/auth/table.js';
import { createHarness, type Harness, type TestTenant } from '../helpers/harness.js';
import { expectError, routeCases } from '../helpers/security.js';
import { totpAt } from './totp.fixture.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h.close());

const PASSWORD = 'a long enough passphrase';
const post = (url: string, payload: object, headers: Record<string, string>) => h.inject({ method: 'POST', url, headers, payload });
const t = (tenant: TestTenant = h.tenant) => ({ 'x-tenant-id': tenant.tenantId });

/** A registered account with TOTP on, in a tenant. */
async function totpUser(email: string, tenant: TestTenant = h.tenant) {
  expect((await post('/auth/email', { email, password: PASSWORD }, t(tenant))).statusCode).toBe(201);
  const login = await post('/auth/login', { email, password: PASSWORD }, t(tenant));
  const auth = h.bearerHeaders(login.json().accessToken, tenant);
  const { secret } = (await post('/auth/2fa/setup', { method: 'totp' }, auth)).json();
  const enabled = await post('/auth/2fa/enable', { code: totpAt(secret, h.clock.now()) }, auth);
  expect(enabled.statusCode).toBe(201);
  const userId = (await h.container.users.findRowByEmail(tenant.tenantId, email))!.id;
  return { secret: secret as string, codes: enabled.json().recoveryCodes as string[], auth, userId };
}
const challenge = async (email: string, tenant: TestTenant = h.tenant) => (await post('/auth/login', { email, password: PASSWORD }, t(tenant))).json().challengeToken as string;

routeCases(() => h, 'POST /auth/2fa/recovery-codes', { url: () => '/auth/2fa/recovery-codes', payload: () => ({ password: PASSWORD }), accepts: { bearer: 'user' } });

describe('TOTP security', () => {
  it('the secret is stored sealed and the recovery codes as hashes only', async () => {
    const { secret, codes, userId } = await totpUser('sealed@example.com');
    const [row] = await h.database.db.select().from(credentials).where(and(eq(credentials.tenantId, h.tenant.tenantId), eq(credentials.userId, userId)));
    expect(row!.twoFactorMethod).toBe('totp');
    expect(row!.totpSecretSealed).toBeTruthy();
    expect(row!.totpSecretSealed).not.toContain(secret);
    expect(row!.totpPendingSealed).toBeNull();
    const stored = await h.database.db.select().from(recoveryCodes).where(and(eq(recoveryCodes.tenantId, h.tenant.tenantId), eq(recoveryCodes.userId, userId)));
    expect(stored).toHaveLength(10);
    const text = JSON.stringify(stored);
    for (const c of codes) {
      expect(text).not.toContain(c);
      expect(text).not.toContain(c.replace('-', ''));
    }
  });

  it("another user's codes do not finish my login: their app code and recovery code are wrong codes for me", async () => {
    const mine = await totpUser('mine@example.com');
    const theirs = await totpUser('theirs@example.com');
    h.clock.advance(30_000);
    const challengeToken = await challenge('mine@example.com');
    const theirCode = totpAt(theirs.secret, h.clock.now());
    if (theirCode !== totpAt(mine.secret, h.clock.now())) {
      expectError(await post('/auth/2fa/verify', { challengeToken, code: theirCode }, t()), 400, 'CODE_INVALID');
    }
    expectError(await post('/auth/2fa/verify', { challengeToken, code: theirs.codes[0]! }, t()), 400, 'CODE_INVALID');
    // Their recovery code is still theirs to use.
    expect((await post('/auth/2fa/verify', { challengeToken: await challenge('theirs@example.com'), code: theirs.codes[0]! }, t())).statusCode).toBe(201);
    expect((await post('/auth/2fa/verify', { challengeToken, code: totpAt(mine.secret, h.clock.now()) }, t())).statusCode).toBe(201);
  });

  it("a challenge of one tenant is not one of another; the same account's codes under another tenant header do nothing", async () => {
    const other = await h.newTenant();
    const { secret, codes } = await totpUser('tenant@example.com');
    h.clock.advance(30_000);
    const challengeToken = await challenge('tenant@example.com');
    expectError(await post('/auth/2fa/verify', { challengeToken, code: totpAt(secret, h.clock.now()) }, t(other)), 401, 'CHALLENGE_INVALID');
    expectError(await post('/auth/2fa/verify', { challengeToken, code: codes[0]! }, t(other)), 401, 'CHALLENGE_INVALID');
    // Nothing was spent: both still work at home.
    expect((await post('/auth/2fa/verify', { challengeToken, code: codes[0]! }, t())).statusCode).toBe(201);
    expect((await post('/auth/2fa/verify', { challengeToken: await challenge('tenant@example.com'), code: totpAt(secret, h.clock.now()) }, t())).statusCode).toBe(201);
  });

  it('malformed input is a 400 before any check', async () => {
    const { auth } = await totpUser('malformed@example.com');
    const challengeToken = await challenge('malformed@example.com');
    for (const code of ['12345', '1234567', 'abcdef', 'aaaaa-aaaa', 'aaaa1-aaaaa', "' or 1=1 --", '１２３４５６']) {
      expectError(await post('/auth/2fa/verify', { challengeToken, code }, t()), 400, 'VALIDATION_FAILED');
    }
    expectError(await post('/auth/2fa/verify', { challengeToken, code: 123456 }, t()), 400, 'VALIDATION_FAILED');
    expectError(await post('/auth/2fa/setup', { method: 'TOTP' }, auth), 400, 'VALIDATION_FAILED');
    expectError(await post('/auth/2fa/setup', { method: 'totp', secret: 'JBSWY3DPEHPK3PXP' }, auth), 400, 'VALIDATION_FAILED');
    expectError(await post('/auth/2fa/enable', { code: '123456', method: 'sms' }, auth), 400, 'VALIDATION_FAILED');
    expectError(await post('/auth/2fa/enable', { code: 'aaaaa-aaaaa' }, auth), 400, 'VALIDATION_FAILED');
    expectError(await post('/auth/2fa/recovery-codes', {}, auth), 400, 'VALIDATION_FAILED');
  });

  it('an API key cannot set up TOTP or renew codes for a user; enable of TOTP without a setup is a wrong code', async () => {
    expectError(await post('/auth/2fa/setup', { method: 'totp' }, h.keyHeaders()), 403, 'FORBIDDEN');
    expectError(await post('/auth/2fa/recovery-codes', { password: PASSWORD }, h.keyHeaders()), 403, 'FORBIDDEN');
    // Enable with method totp and no setup in progress: no key to check against.
    expect((await post('/auth/email', { email: 'nosetup@example.com', password: PASSWORD }, t())).statusCode).toBe(201);
    const auth = h.bearerHeaders((await post('/auth/login', { email: 'nosetup@example.com', password: PASSWORD }, t())).json().accessToken);
    expectError(await post('/auth/2fa/enable', { code: '123456', method: 'totp' }, auth), 400, 'CODE_INVALID');
    expectError(await post('/auth/2fa/recovery-codes', { password: PASSWORD }, auth), 409, 'TWO_FACTOR_NOT_ENABLED');
  });
});
