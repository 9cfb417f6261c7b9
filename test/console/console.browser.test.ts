import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { defaultConsoleDir } from '../../src/platform/http/console.js';
import { ensureChromium } from '../helpers/chromium.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { ONE_PASS_ONLY } from '../helpers/passes.js';
import { signIn as registerEoa } from '../wallets/siwe.js';
import { PNG, upload } from '../documents/fixtures.js';
import { entityOf, TIN } from '../entities/fixtures.js';
import { fundEvm } from '../custody/helpers.js';

const SHOTS = join(process.cwd(), 'docs', 'console');
const PASSWORD = 'a long console passphrase';

/**
 * The operator console in headless Chromium against the real service (its own origin, its CSP):
 * an admin signs in, finds a user by wallet address, opens the user's manual KYC attempt that no
 * one decided, rejects it with a reason; the user's own GET /kyc/attempts shows the rejection.
 * A plain user's account and token get "Admins only" and no data. Screenshots of the main pages
 * go to docs/console/ (the README shows them). The pages' subject does not depend on the database
 * kind (the routes they call are tested on both passes): the PGlite pass only.
 */
describe.skipIf(ONE_PASS_ONLY || (!ensureChromium().path && !ensureChromium().required))('the operator console in Chromium', () => {
  let h: Harness;
  let browser: Browser;
  const cspViolations: string[] = [];

  beforeAll(async () => {
    const found = ensureChromium();
    if (!found.path) throw new Error(found.reason);
    // `npm run build` builds the console (CI does before the tests); a bare checkout builds it here.
    if (!existsSync(join(defaultConsoleDir(), 'index.html'))) {
      execFileSync(join('node_modules', '.bin', 'vite'), ['build', '--config', 'console/vite.config.ts'], { stdio: 'ignore' });
    }
    mkdirSync(SHOTS, { recursive: true });
    h = await createHarness({ listen: true });
    browser = await chromium.launch({ executablePath: found.path, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await h?.close();
  });

  /** An account with a password (the public sign-up route), its id and a token. */
  async function account(email: string): Promise<{ userId: string; token: string }> {
    const headers = { 'x-tenant-id': h.tenant.tenantId };
    const signup = await h.inject({ method: 'POST', url: '/auth/email', headers, payload: { email, password: PASSWORD } });
    expect(signup.statusCode, signup.body).toBe(201);
    const login = await h.inject({ method: 'POST', url: '/auth/email/login', headers, payload: { email, password: PASSWORD } });
    expect(login.statusCode, login.body).toBe(201);
    const user = await h.container.users.findRowByEmail(h.tenant.tenantId, email);
    return { userId: user!.id, token: login.json().accessToken as string };
  }

  async function newPage(): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
    });
    return page;
  }

  async function signInOnConsole(page: Page, email: string): Promise<void> {
    await page.goto(`${h.baseUrl}/console/?tenant=${h.tenant.tenantId}`);
    await expect.poll(() => page.getByLabel('Tenant ID').inputValue()).toBe(h.tenant.tenantId);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  }

  it('an admin finds a user by wallet address and rejects their undecided KYC attempt with a reason; the user sees it rejected', async () => {
    const stamp = Date.now();
    const adminEmail = `console-admin-${stamp}@example.com`;
    const admin = await account(adminEmail);
    // What `bastion user role --role admin` does.
    await h.container.users.setFields(h.tenant.tenantId, admin.userId, { role: 'admin' });

    const userEmail = `console-user-${stamp}@example.com`;
    const user = await account(userEmail);
    const wallet = privateKeyToAccount(generatePrivateKey());
    const registered = await registerEoa(h, user.token, wallet);
    expect(registered.statusCode, registered.body).toBe(201);
    const byWallet = await h.inject({ method: 'GET', url: `/users?evmEoa=${wallet.address}`, headers: h.keyHeaders() });
    expect(byWallet.json().data.map((u: { id: string }) => u.id), byWallet.body).toEqual([user.userId]);
    const created = await h.inject({
      method: 'POST',
      url: '/kyc/kyc',
      headers: h.keyHeaders(),
      payload: { userId: user.userId, provider: 'manual', firstName: 'Grace', lastName: 'Hopper', country: 'US' },
    });
    expect(created.statusCode, created.body).toBe(201);
    const kycId = created.json().kycId as string;
    const scan = await upload(h, h.bearerHeaders(user.token), { type: 'identity', name: 'Passport scan' }, PNG, 'image/png');
    expect(scan.statusCode, scan.body).toBe(201);
    // A pending accreditation claim too, so the queue shows both kinds.
    await h.inject({ method: 'POST', url: '/accreditations', headers: h.keyHeaders(), payload: { type: 'income', userId: user.userId, notes: 'W-2 for two years' } });

    // And an entity's business profile, submitted to the provider (its sandbox) and awaiting its review.
    const entity = await entityOf(h);
    const profile = await h.inject({ method: 'POST', url: `/entities/${entity.entityId}/business-profile-a`, headers: entity.owner.headers, payload: { tin: TIN } });
    expect(profile.statusCode, profile.body).toBe(201);

    const page = await newPage();
    await page.goto(`${h.baseUrl}/console/?tenant=${h.tenant.tenantId}`);
    await page.getByLabel('Email').fill(adminEmail);
    await page.screenshot({ path: join(SHOTS, 'sign-in.png') });
    await signInOnConsole(page, adminEmail);

    // The review queue: the undecided attempt is there, oldest first.
    await page.getByRole('heading', { name: 'Review queue' }).waitFor();
    const queued = page.getByRole('link', { name: `Open attempt …${kycId.slice(-8)}` });
    await queued.waitFor();
    await page.getByRole('heading', { name: 'Accreditation claims awaiting a decision' }).waitFor();
    await page.getByRole('table').nth(1).waitFor();
    await page.getByRole('region', { name: 'Business profiles awaiting the provider' }).getByRole('cell', { name: 'Acme Holdings LLC' }).first().waitFor();
    await page.screenshot({ path: join(SHOTS, 'review-queue.png'), fullPage: true });

    // Users: find by the wallet address (keyboard: type and Enter).
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Users' }).click();
    await page.getByLabel('Email, wallet address (EVM or XRPL) or user id').fill(wallet.address);
    await page.keyboard.press('Enter');
    const results = page.getByRole('region', { name: /Users by EVM address/ });
    const hit = results.getByRole('link', { name: userEmail });
    await hit.waitFor();
    expect(await results.getByRole('row').count()).toBe(2); // the header and the one user
    await hit.click();
    await page.getByRole('heading', { level: 1, name: userEmail }).waitFor();
    await page.getByRole('heading', { name: 'KYC history' }).waitFor();
    await page.getByRole('link', { name: `Open attempt …${kycId.slice(-8)}` }).waitFor();
    await page.getByText(wallet.address).first().waitFor();
    await page.getByRole('heading', { name: 'Sessions' }).waitFor();
    await page.screenshot({ path: join(SHOTS, 'user.png'), fullPage: true });

    // The attempt: decided by no one yet; reject it with a reason.
    await page.getByRole('link', { name: `Open attempt …${kycId.slice(-8)}` }).click();
    await page.getByRole('heading', { level: 1, name: /KYC attempt of Grace Hopper/ }).waitFor();
    // The user's document, inline: fetched with the admin's token, shown from a blob: URL the CSP admits.
    await page.getByRole('button', { name: 'View Passport scan' }).click();
    const image = page.getByRole('img', { name: 'Passport scan' });
    await image.waitFor();
    await expect.poll(() => image.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth)).toBe(1);
    await page.getByRole('radio', { name: 'Reject' }).check();
    await page.getByLabel(/^Reason/).fill('The passport photo is unreadable');
    await page.screenshot({ path: join(SHOTS, 'kyc-attempt.png'), fullPage: true });
    await page.getByRole('button', { name: 'Reject' }).click();
    await page.getByText('This attempt is declined: nothing more to decide.').waitFor();
    await page.getByText('The passport photo is unreadable').first().waitFor();

    // The user's own view, through the API with the user's token.
    const attempts = await h.inject({ method: 'GET', url: '/kyc/attempts', headers: h.bearerHeaders(user.token) });
    expect(attempts.statusCode).toBe(200);
    const attempt = (attempts.json().data as Array<{ kycId: string; status: string; reason: string | null }>).find((a) => a.kycId === kycId);
    expect(attempt).toMatchObject({ status: 'declined', reason: 'The passport photo is unreadable' });
    // Done as the admin, through the same service and audit as the API.
    const audit = await h.inject({ method: 'GET', url: `/audit-events?userId=${user.userId}&type=kyc.transition`, headers: h.keyHeaders() });
    expect(audit.json().data[0]).toMatchObject({ actorType: 'user', actorId: admin.userId, objectId: kycId, details: { from: 'created', to: 'declined', reason: 'The passport photo is unreadable' } });

    // The audit log page shows the decision.
    await page.getByRole('link', { name: 'Audit log' }).click();
    await page.getByLabel('User id').fill(user.userId);
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByRole('cell', { name: 'kyc.transition' }).first().waitFor();
    await page.screenshot({ path: join(SHOTS, 'audit-log.png'), fullPage: true });

    // Event endpoints: the tenant has none here; the page says so.
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Event endpoints' }).click();
    await page.getByRole('heading', { level: 1, name: 'Event endpoints' }).waitFor();
    await page.getByText('No event endpoints.').waitFor();

    // Transfers: one the user sent through the API (custody-a sandbox), listed with its status and user.
    const vault = await h.inject({ method: 'POST', url: '/evm-vaults', headers: h.keyHeaders(), payload: { userId: user.userId } });
    expect(vault.statusCode, vault.body).toBe(201);
    await fundEvm(h, vault.json().address, '1');
    const sent = await h.inject({
      method: 'POST',
      url: '/non-custodial-evm/transfers',
      headers: h.bearerHeaders(user.token),
      payload: {
        amount: '0.25', assetType: 'ETH', sourceId: vault.json().wallets[0].walletId, sourceType: 'WALLET', destinationId: privateKeyToAccount(generatePrivateKey()).address,
        destinationType: 'ADDRESS', idempotentId: `console-${stamp}`, provider: 'custody-a',
      },
    });
    expect(sent.statusCode, sent.body).toBe(201);
    const stored = async () => (await h.inject({ method: 'GET', url: `/custody-a/transfers/${sent.json().id}`, headers: h.keyHeaders() })).json() as { status: string; hash: string | null };
    for (const deadline = Date.now() + 20_000; (await stored()).status !== 'COMPLETED' && Date.now() < deadline; ) {
      await h.container.platform.background.drain();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const { hash } = await stored();
    expect(hash).toMatch(/^0x[0-9a-f]{64}$/);
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Transfers' }).click();
    const transfer = page.getByRole('link', { name: `Open transfer …${(sent.json().id as string).slice(-8)}` });
    await transfer.waitFor();
    await page.getByText(hash!).waitFor(); // as text: the service names no explorer
    await page.screenshot({ path: join(SHOTS, 'transfers.png'), fullPage: true });
    await transfer.click();
    await page.getByRole('heading', { name: 'Status history' }).waitFor();

    expect(cspViolations).toEqual([]);
    await page.close();
  }, 120_000);

  it("a plain user's account and token open no console data: 'Admins only'", async () => {
    const email = `console-plain-${Date.now()}@example.com`;
    const plain = await account(email);
    const page = await newPage();
    const answers: number[] = [];
    page.on('response', (response) => {
      if (new URL(response.url()).pathname.match(/^\/(users|kyc|accreditations|audit-events|event-endpoints|custody-a)/) && !response.url().endsWith('/users/me')) answers.push(response.status());
    });

    // Signing in with the account: refused, signed out again, nothing shown.
    await signInOnConsole(page, email);
    await page.getByRole('heading', { name: 'Admins only' }).waitFor();
    expect(await page.getByRole('navigation', { name: 'Console' }).count()).toBe(0);
    expect(await page.getByRole('table').count()).toBe(0);
    await page.screenshot({ path: join(SHOTS, 'admins-only.png') });
    const sessions = await h.inject({ method: 'GET', url: `/auth/sessions?userId=${plain.userId}`, headers: h.keyHeaders() });
    expect(sessions.json().data).toHaveLength(1); // the one the test opened; the console's was ended

    // With a user's token in the console's place (as if planted): every page answers "Admins only" and no data.
    await page.evaluate(
      ({ tenantId, token, userId }) =>
        (globalThis as unknown as { sessionStorage: { setItem(k: string, v: string): void } }).sessionStorage.setItem('bastion.console.session', JSON.stringify({ tenantId, accessToken: token, refreshToken: 'none', email: 'planted', userId })),
      { tenantId: h.tenant.tenantId, token: plain.token, userId: plain.userId },
    );
    for (const path of ['/', '/users', `/users/${plain.userId}`, '/audit', '/events', '/transfers']) {
      await page.goto(`${h.baseUrl}/console${path}`);
      await page.getByRole('heading', { name: 'Admins only' }).first().waitFor();
      expect(await page.getByRole('table').count(), path).toBe(0);
      expect(await page.getByText(email).count(), path).toBe(0);
    }
    expect(answers.length).toBeGreaterThan(0);
    expect(answers.every((status) => status === 403)).toBe(true);
    await page.close();
  }, 120_000);
});
