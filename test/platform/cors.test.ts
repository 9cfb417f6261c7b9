import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { createHarness, type Harness } from '../helpers/harness.js';
import { ensureChromium } from '../helpers/chromium.js';
import { commands, UsageError } from '../../src/cli-commands.js';

// Origins of this run only: tenants of other test files share the database, and a preflight
// admits an origin that any tenant admits.
const RUN = randomUUID().slice(0, 8);
const APP = `https://app-${RUN}.acme.example`;
const OTHER = `https://app-${RUN}.other.example`;

describe('CORS per tenant', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(async () => {
    await h?.close();
  });

  const preflight = (origin: string, method = 'POST') =>
    h.inject({
      method: 'OPTIONS',
      url: '/auth/login',
      headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': 'content-type,x-tenant-id' },
    });

  it('admits no origin until the tenant names one: a preflight is refused without CORS headers, an answer carries none', async () => {
    const answer = await preflight(`https://nobody-${RUN}.example`);
    expect(answer.statusCode).toBe(404);
    expect(answer.headers['access-control-allow-origin']).toBeUndefined();
    const read = await h.inject({ method: 'GET', url: `/users?limit=1`, headers: { ...h.keyHeaders(), origin: `https://nobody-${RUN}.example` } });
    expect(read.statusCode).toBe(200);
    expect(read.headers['access-control-allow-origin']).toBeUndefined();
  });

  it("defaults to the origin of the tenant's app URL, and answers a preflight with the API's headers", async () => {
    await h.container.tenants.setAppUrl(h.tenant.tenantId, `${APP}/mail-links`);
    expect(await h.container.tenants.corsOrigins(h.tenant.tenantId)).toEqual({ origins: [APP], source: 'app-url' });
    const answer = await preflight(APP);
    expect(answer.statusCode).toBe(204);
    expect(answer.headers['access-control-allow-origin']).toBe(APP);
    expect(answer.headers['access-control-allow-credentials']).toBeUndefined();
    const allowed = String(answer.headers['access-control-allow-headers']).split(/,\s*/);
    expect(allowed).toEqual(expect.arrayContaining(['x-tenant-id', 'authorization', 'x-api-key', 'idempotency-key', 'content-type']));
    expect(String(answer.headers['access-control-allow-methods'])).toContain('DELETE');
    expect(answer.headers['access-control-max-age']).toBe('600');
    expect(String(answer.headers.vary)).toMatch(/origin/i);
  });

  it("an answer admits the origin only for the tenant in x-tenant-id, errors included, and exposes the API's headers", async () => {
    const ok = await h.inject({ method: 'GET', url: '/users?limit=1', headers: { ...h.keyHeaders(), origin: APP } });
    expect(ok.headers['access-control-allow-origin']).toBe(APP);
    const exposed = String(ok.headers['access-control-expose-headers']).split(/,\s*/);
    expect(exposed).toEqual(expect.arrayContaining(['x-request-id', 'retry-after', 'idempotent-replayed', 'x-ratelimit-limit', 'x-ratelimit-remaining']));
    // A 401 must be readable by the app too (it shows "log in again").
    const denied = await h.inject({ method: 'GET', url: '/users/me', headers: { 'x-tenant-id': h.tenant.tenantId, authorization: 'Bearer nope', origin: APP } });
    expect(denied.statusCode).toBe(401);
    expect(denied.headers['access-control-allow-origin']).toBe(APP);
    // Another tenant does not admit this tenant's app.
    const other = await h.newTenant();
    const foreign = await h.inject({ method: 'GET', url: '/users?limit=1', headers: { ...h.keyHeaders(other), origin: APP } });
    expect(foreign.statusCode).toBe(200);
    expect(foreign.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('an explicit list replaces the default; * and URLs with a path are refused and change nothing; "default" goes back', async () => {
    for (const bad of ['*', 'https://app.acme.example/path', 'ftp://files.example', 'not a url', 'https://user:pw@app.acme.example']) {
      await expect(h.container.tenants.setCorsOrigins(h.tenant.tenantId, [bad])).rejects.toMatchObject({ statusCode: 400, code: 'TENANT_CORS_ORIGIN_INVALID' });
    }
    expect((await h.container.tenants.corsOrigins(h.tenant.tenantId)).source).toBe('app-url');
    expect(await h.container.tenants.setCorsOrigins(h.tenant.tenantId, [`${OTHER}/`, `HTTP://LOCALHOST-${RUN}:5173`])).toEqual({
      origins: [OTHER, `http://localhost-${RUN}:5173`],
      source: 'set',
    });
    expect((await preflight(OTHER)).headers['access-control-allow-origin']).toBe(OTHER);
    expect((await preflight(APP)).statusCode).toBe(404);
    const read = await h.inject({ method: 'GET', url: '/users?limit=1', headers: { ...h.keyHeaders(), origin: `http://localhost-${RUN}:5173` } });
    expect(read.headers['access-control-allow-origin']).toBe(`http://localhost-${RUN}:5173`);
    expect(await h.container.tenants.setCorsOrigins(h.tenant.tenantId, [])).toEqual({ origins: [], source: 'set' });
    expect((await preflight(OTHER)).statusCode).toBe(404);
    expect(await h.container.tenants.setCorsOrigins(h.tenant.tenantId, null)).toEqual({ origins: [APP], source: 'app-url' });
  });

  it('the CLI sets and shows the list (the commands as the service runs them)', async () => {
    const tenant = h.tenant.tenantId;
    const cli = (name: string, options: Record<string, string>) => commands[name]!(h.container, options, { redirectAllow: [] }) as Promise<Record<string, unknown>>;
    expect(await cli('tenant set-cors-origins', { tenant, origins: `${OTHER},http://127.0.0.1:8080` })).toMatchObject({ origins: [OTHER, 'http://127.0.0.1:8080'], source: 'set' });
    expect(await cli('tenant cors-origins', { tenant })).toMatchObject({ tenantId: tenant, origins: [OTHER, 'http://127.0.0.1:8080'], source: 'set' });
    await expect(cli('tenant set-cors-origins', { tenant, origins: '*' })).rejects.toMatchObject({ code: 'TENANT_CORS_ORIGIN_INVALID', message: expect.stringMatching(/never \*/) });
    await expect(cli('tenant set-cors-origins', { tenant })).rejects.toBeInstanceOf(UsageError);
    expect(await cli('tenant set-cors-origins', { tenant, origins: 'default' })).toMatchObject({ origins: [APP], source: 'app-url' });
  });
});

describe.skipIf(!ensureChromium().path && !ensureChromium().required)('CORS in a real browser', () => {
  let h: Harness;
  let browser: Browser;
  const pages: Server[] = [];
  let allowed = '';
  let refused = '';

  /** A page server on its own loopback port: its origin is http://127.0.0.1:<port>. */
  async function pageServer(): Promise<string> {
    const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>app</title>'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    pages.push(server);
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  beforeAll(async () => {
    const found = ensureChromium();
    if (!found.path) throw new Error(found.reason);
    h = await createHarness({ listen: true });
    allowed = await pageServer();
    refused = await pageServer();
    await h.container.tenants.setCorsOrigins(h.tenant.tenantId, [allowed]);
    browser = await chromium.launch({ executablePath: found.path, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  });
  afterAll(async () => {
    await browser?.close();
    for (const server of pages) {
      server.closeAllConnections();
      server.close();
    }
    await h?.close();
  });

  /** In a page of `origin`: sign up, log in, read /users/me, with fetch and JSON bodies (preflighted). */
  async function journey(origin: string) {
    const page = await browser.newPage();
    try {
      await page.goto(origin);
      return await page.evaluate(
        async ({ api, tenantId, email }) => {
          const json = { 'content-type': 'application/json', 'x-tenant-id': tenantId };
          try {
            const signup = await fetch(`${api}/auth/email`, { method: 'POST', headers: json, body: JSON.stringify({ email, password: 'a long passphrase' }) });
            const login = await fetch(`${api}/auth/login`, { method: 'POST', headers: json, body: JSON.stringify({ email, password: 'a long passphrase' }) });
            const pair = (await login.json()) as { accessToken: string };
            const me = await fetch(`${api}/users/me`, { headers: { 'x-tenant-id': tenantId, authorization: `Bearer ${pair.accessToken}` } });
            return { signup: signup.status, login: login.status, me: me.status, email: ((await me.json()) as { email: string }).email, requestId: me.headers.get('x-request-id') };
          } catch (error) {
            return { error: String(error) };
          }
        },
        { api: h.baseUrl, tenantId: h.tenant.tenantId, email: `cors-${Date.now()}@example.com` },
      );
    } finally {
      await page.close();
    }
  }

  it('a page on an admitted origin signs up, logs in and reads /users/me', async () => {
    const result = await journey(allowed);
    expect(result).toMatchObject({ signup: 201, login: 201, me: 200, email: expect.stringMatching(/^cors-/), requestId: expect.any(String) });
  });

  it('a page on another origin is refused by the browser, before any request reaches a route', async () => {
    const before = await h.inject({ method: 'GET', url: '/users?limit=100', headers: h.keyHeaders() });
    const result = await journey(refused);
    expect(result).toEqual({ error: expect.stringMatching(/Failed to fetch/) });
    const after = await h.inject({ method: 'GET', url: '/users?limit=100', headers: h.keyHeaders() });
    expect(after.json()).toEqual(before.json());
  });
});

describe('preflights count against the per-address limit', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness({ rateLimit: { globalMax: 3 } });
  });
  afterAll(async () => h?.close());

  it('a flood of preflights with origins never seen is cut off by the net (each unseen origin costs a query)', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const answer = await h.inject({
        method: 'OPTIONS',
        url: '/auth/login',
        headers: { origin: `https://flood-${randomUUID().slice(0, 8)}.example`, 'access-control-request-method': 'POST' },
      });
      statuses.push(answer.statusCode);
    }
    expect(statuses.slice(0, 3)).toEqual([404, 404, 404]);
    expect(statuses.slice(3)).toEqual([429, 429, 429]);
  });
});
