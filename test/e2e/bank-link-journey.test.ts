import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { allowRedirects } from '../helpers/bank-link.js';
import { ensureChromium } from '../helpers/chromium.js';

const browserPath = ensureChromium();
if (!browserPath.path && !browserPath.required) console.warn(`bank-link browser journey skipped: ${browserPath.reason}`);

/** A person links bank accounts in a real headless Chromium, through the sandbox's Link page. */
describe.skipIf(!browserPath.path && !browserPath.required)('bank-link journey in headless Chromium', () => {
  let h: Harness;
  let browser: Browser;
  let app: Server;
  let appUrl: string;

  beforeAll(async () => {
    h = await createHarness({ listen: true });
    // The tenant's web app: the page the Link flow returns to.
    app = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>App</title><p>Back in the app</p>'));
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}/bank`;
    await allowRedirects(h, h.tenant.tenantId, [appUrl]);
    if (!browserPath.path) throw new Error(`bank-link browser journey: ${browserPath.reason}`);
    browser = await chromium.launch({ executablePath: browserPath.path, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => app?.close(resolve));
    await h?.close();
  });

  it('link token -> Link page (bank, sign-in, accounts) -> redirect with the public token -> exchange -> list -> remove', async () => {
    const user = h.bearerHeaders(await h.tokenFor(await h.createUser()));
    const linkIds: string[] = [];
    for (const [bank, accounts] of [['Tartan Bank', ['Plaid Checking', 'Plaid Saving']], ['Houndstooth Bank', ['Plaid Money Market']]] as const) {
      const token = await h.inject({ method: 'GET', url: `/bank-link/link-token?redirectUrl=${encodeURIComponent(`${appUrl}/done`)}`, headers: user });
      expect(token.statusCode).toBe(200);
      const page = await browser.newPage();
      await page.goto(token.json().linkUrl);
      await page.getByLabel(bank).check();
      await page.getByLabel('Username').fill('user_good');
      await page.getByLabel('Password').fill('wrong');
      await page.getByRole('button', { name: 'Sign in' }).click();
      expect(await page.getByRole('alert').textContent()).toMatch(/credentials were not correct/);
      await page.getByLabel(bank).check();
      await page.getByLabel('Username').fill('user_good');
      await page.getByLabel('Password').fill('pass_good');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByText('Choose accounts').waitFor();
      await page.getByLabel('Plaid Checking').setChecked(accounts.includes('Plaid Checking' as never));
      for (const name of accounts) await page.getByLabel(name).check();
      await Promise.all([page.waitForURL((url) => url.href.startsWith(`${appUrl}/done`)), page.getByRole('button', { name: 'Continue' }).click()]);
      const publicToken = new URL(page.url()).searchParams.get('public_token');
      expect(publicToken).toMatch(/^public-sandbox-/);
      expect(await page.textContent('p')).toBe('Back in the app');
      await page.close();

      const exchanged = await h.inject({ method: 'POST', url: '/bank-link/public-token', headers: user, payload: { publicToken } });
      expect(exchanged.statusCode).toBe(201);
      expect(exchanged.json().institutionName).toBe(bank);
      expect(exchanged.json().accounts.map((a: { name: string }) => a.name)).toEqual(accounts);
      linkIds.push(exchanged.json().itemId);
    }

    const list = await h.inject({ method: 'GET', url: '/bank-link/items', headers: user });
    expect(list.json().data.map((i: { itemId: string }) => i.itemId)).toEqual(linkIds);
    const removed = await h.inject({ method: 'DELETE', url: `/bank-link/items/${linkIds[0]}`, headers: user });
    expect(removed.statusCode).toBe(200);
    const after = await h.inject({ method: 'GET', url: '/bank-link/items', headers: user });
    expect(after.json().data.map((i: { itemId: string }) => i.itemId)).toEqual([linkIds[1]]);
  }, 300_000);
});
