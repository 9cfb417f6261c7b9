import { beforeAll, describe, expect, it } from 'vitest';
import type { Harness } from '../helpers/harness.js';
import { codeIn, linkIn, type MailHarness } from '../helpers/mailbox.js';
import { emailFlowsFixture } from './email-flows.fixture.js';
import { expectError } from '../helpers/security.js';

const fx = emailFlowsFixture();
const { t, post, login, account } = fx;
let h: Harness;
let box: MailHarness['box'];
beforeAll(() => ({ h, box } = fx.env));

/** The mail cap spaces reset mails to one a minute per address: step past it. */
const nextMinute = () => h.clock.advance(61_000);
const tokenOf = async (email: string) => linkIn(await box.next(email, /Reset your password/)).searchParams.get('token')!;
const reset = (token: string, password: string) =>
  h.inject({ method: 'PUT', url: `/auth/reset-password?token=${encodeURIComponent(token)}`, headers: t(), payload: { password } });
const status = (token: string) => post('/auth/token-status', { token });

describe('earlier reset tokens and codes die with a reset or a newer request', () => {
  it('a link mailed before a reset by code is refused afterwards, and token-status says so', async () => {
    await account('old-link@example.com');
    await post('/auth/forgot-password', { email: 'old-link@example.com' });
    const oldLink = await tokenOf('old-link@example.com');
    expect((await status(oldLink)).json()).toBe(true);

    nextMinute();
    await post('/auth/forgot-password/request-otp', { email: 'old-link@example.com' });
    const code = codeIn(await box.next('old-link@example.com', /reset code/));
    const exchanged = await post('/auth/forgot-password/verify-otp', { email: 'old-link@example.com', code });
    expect(exchanged.statusCode).toBe(201);
    expect((await reset(exchanged.json().resetToken, 'reset by the code')).statusCode).toBe(200);

    expectError(await status(oldLink), 400, 'ONE_TIME_TOKEN_INVALID');
    expectError(await reset(oldLink, 'the stale link wins'), 400, 'ONE_TIME_TOKEN_INVALID');
    expect((await login('old-link@example.com', 'reset by the code')).statusCode).toBe(201);
  });

  it('a newer reset request voids the earlier link and the earlier code', async () => {
    await account('newer@example.com');
    await post('/auth/forgot-password/request-otp', { email: 'newer@example.com' });
    const oldCode = codeIn(await box.next('newer@example.com', /reset code/));
    nextMinute();
    await post('/auth/forgot-password', { email: 'newer@example.com' });
    const firstLink = await tokenOf('newer@example.com');
    nextMinute();
    await post('/auth/forgot-password', { email: 'newer@example.com' });
    const secondLink = await tokenOf('newer@example.com');

    expectError(await status(firstLink), 400, 'ONE_TIME_TOKEN_INVALID');
    expectError(await reset(firstLink, 'the first link wins'), 400, 'ONE_TIME_TOKEN_INVALID');
    expectError(await post('/auth/forgot-password/verify-otp', { email: 'newer@example.com', code: oldCode }), 400, 'CODE_INVALID');
    expect((await status(secondLink)).json()).toBe(true);
    expect((await reset(secondLink, 'the newest link only')).statusCode).toBe(200);
  });

  it('a code requested after a link voids the link', async () => {
    await account('code-after@example.com');
    await post('/auth/forgot-password', { email: 'code-after@example.com' });
    const link = await tokenOf('code-after@example.com');
    nextMinute();
    await post('/auth/forgot-password/request-otp', { email: 'code-after@example.com' });
    await box.next('code-after@example.com', /reset code/);
    expectError(await status(link), 400, 'ONE_TIME_TOKEN_INVALID');
  });

  it('a reset voids every other live reset secret of the account and ends all its sessions and refresh families', async () => {
    await account('all-gone@example.com');
    const userId = (await h.container.users.findRowByEmail(h.tenant.tenantId, 'all-gone@example.com'))!.id;
    const first = (await login('all-gone@example.com', 'the original passphrase')).json();
    const second = (await login('all-gone@example.com', 'the original passphrase')).json();
    // Rotate one family so its current refresh token is not its first.
    const rotated = (await post('/auth/refresh', { refreshToken: second.refreshToken })).json();
    // Two live reset tokens at once (two requests racing in the background) and a live code.
    const { oneTime, tx } = h.container;
    const [a, b] = await tx(async (db) => [
      await oneTime.issueToken(db, h.tenant.tenantId, userId, 'password_reset_token', 30 * 60_000),
      await oneTime.issueToken(db, h.tenant.tenantId, userId, 'password_reset_token', 30 * 60_000),
    ]);
    const code = await tx((db) => oneTime.issueCode(db, h.tenant.tenantId, userId, 'password_reset_code'));

    expect((await reset(a!, 'the one reset that counts')).statusCode).toBe(200);
    expectError(await status(b!), 400, 'ONE_TIME_TOKEN_INVALID');
    expectError(await post('/auth/forgot-password/verify-otp', { email: 'all-gone@example.com', code }), 400, 'CODE_INVALID');
    for (const pair of [first, rotated]) {
      expectError(await post('/auth/refresh', { refreshToken: pair.refreshToken }), 401, 'REFRESH_TOKEN_INVALID');
      expectError(await h.inject({ method: 'GET', url: '/users/me', headers: h.bearerHeaders(pair.accessToken) }), 401, 'TOKEN_INVALID');
    }
  });
});
