import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { ensureChromium } from '../helpers/chromium.js';
import { createHarness, type Harness } from '../helpers/harness.js';

/**
 * The passkey journey in a real browser: headless Chromium with a virtual authenticator (CTAP2,
 * resident keys, user verification), on a page whose origin (http://localhost:<port>, a secure
 * context) is the tenant's app URL and so the relying party. The page speaks WebAuthn itself
 * (navigator.credentials.create / get, base64url by hand), as an app would.
 */
describe.skipIf(!ensureChromium().path && !ensureChromium().required)('passkeys in Chromium with a virtual authenticator', () => {
  let h: Harness;
  let browser: Browser;
  let server: Server;
  let origin = '';

  beforeAll(async () => {
    const found = ensureChromium();
    if (!found.path) throw new Error(found.reason);
    h = await createHarness({ listen: true });
    server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>app</title>'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://localhost:${(server.address() as AddressInfo).port}`;
    await h.container.tenants.setAppUrl(h.tenant.tenantId, origin);
    await h.container.tenants.setCorsOrigins(h.tenant.tenantId, [origin]);
    browser = await chromium.launch({ executablePath: found.path, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  });
  afterAll(async () => {
    await browser?.close();
    server?.closeAllConnections();
    server?.close();
    await h?.close();
  });

  it('signs up, registers a passkey, then logs in with it alone (no email, no password) and reads /users/me', async () => {
    const page = await browser.newPage();
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
    });
    const email = `passkey-${Date.now()}@example.com`;
    await page.goto(origin);
    const result = await page.evaluate(
      async ({ api, tenantId, email }) => {
        // The page's WebAuthn objects (the test compiles without the DOM library).
        interface Cred {
          id: string;
          rawId: ArrayBuffer;
          type: string;
          getClientExtensionResults(): Record<string, unknown>;
          response: { clientDataJSON: ArrayBuffer; attestationObject: ArrayBuffer; authenticatorData: ArrayBuffer; signature: ArrayBuffer; userHandle: ArrayBuffer | null; getTransports(): string[] };
        }
        interface Options {
          challenge: string;
          rp: { id: string };
          user: { id: string };
          excludeCredentials?: { id: string }[];
        }
        interface Answer {
          code?: string;
          accessToken?: string;
          options: Options;
        }
        const webauthn = (globalThis as unknown as { navigator: { credentials: { create(o: unknown): Promise<Cred>; get(o: unknown): Promise<Cred> } } }).navigator.credentials;
        const json = { 'content-type': 'application/json', 'x-tenant-id': tenantId };
        const toBytes = (s: string) => Uint8Array.from(atob(s.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((s.length + 3) % 4)), (c) => c.charCodeAt(0));
        const toB64u = (b: ArrayBuffer) => btoa(String.fromCharCode(...new Uint8Array(b))).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
        const call = async (path: string, body: unknown, token?: string) => {
          const res = await fetch(`${api}${path}`, { method: 'POST', headers: token ? { ...json, authorization: `Bearer ${token}` } : json, body: JSON.stringify(body) });
          return { status: res.status, body: (await res.json()) as Answer };
        };

        await call('/auth/email', { email, password: 'a long passphrase' });
        const pair = (await call('/auth/login', { email, password: 'a long passphrase' })).body;

        // Registration: the options from the begin route, to navigator.credentials.create.
        const begin = (await call('/auth/passkeys/register/begin', { name: 'This browser' }, pair.accessToken)).body;
        const o = begin.options;
        const created = await webauthn.create({
          publicKey: {
            ...o,
            challenge: toBytes(o.challenge),
            user: { ...o.user, id: toBytes(o.user.id) },
            excludeCredentials: (o.excludeCredentials ?? []).map((c) => ({ ...c, id: toBytes(c.id) })),
          },
        });
        const att = created.response;
        const finish = await call(
          '/auth/passkeys/register/finish',
          {
            credential: {
              id: created.id,
              rawId: toB64u(created.rawId),
              type: created.type,
              clientExtensionResults: created.getClientExtensionResults(),
              response: { clientDataJSON: toB64u(att.clientDataJSON), attestationObject: toB64u(att.attestationObject), transports: att.getTransports() },
            },
          },
          pair.accessToken,
        );

        // Login: no email, no password; the authenticator offers its discoverable credential.
        const loginBegin = (await call('/auth/passkeys/login/begin', {})).body;
        const lo = loginBegin.options;
        const got = await webauthn.get({ publicKey: { ...lo, challenge: toBytes(lo.challenge), allowCredentials: [] } });
        const asr = got.response;
        const credential = {
          id: got.id,
          rawId: toB64u(got.rawId),
          type: got.type,
          clientExtensionResults: got.getClientExtensionResults(),
          response: {
            clientDataJSON: toB64u(asr.clientDataJSON),
            authenticatorData: toB64u(asr.authenticatorData),
            signature: toB64u(asr.signature),
            ...(asr.userHandle ? { userHandle: toB64u(asr.userHandle) } : {}),
          },
        };
        const login = await call('/auth/passkeys/login/finish', { credential });
        const replay = await call('/auth/passkeys/login/finish', { credential });
        const me = await fetch(`${api}/users/me`, { headers: { 'x-tenant-id': tenantId, authorization: `Bearer ${login.body.accessToken}` } });
        return { rpId: o.rp.id, finish, login, replay: replay.body.code, me: { status: me.status, body: (await me.json()) as { email?: string } } };
      },
      { api: h.baseUrl, tenantId: h.tenant.tenantId, email },
    );

    expect(result.rpId).toBe('localhost');
    expect(result.finish.status).toBe(201);
    expect(result.finish.body).toMatchObject({ name: 'This browser', deviceType: 'singleDevice', transports: ['internal'] });
    expect(result.login.status).toBe(201);
    expect(result.login.body).toMatchObject({ accessToken: expect.stringMatching(/^ey/), tokenType: 'Bearer', expiresIn: 900 });
    expect(result.replay).toBe('PASSKEY_CHALLENGE_INVALID');
    expect(result.me.status).toBe(200);
    expect(result.me.body.email).toBe(email);

    // The authenticator holds one resident credential; its counter is what the service stored.
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(credentials).toHaveLength(1);
    expect(credentials[0]!.isResidentCredential).toBe(true);
    const user = await h.container.users.findRowByEmail(h.tenant.tenantId, email);
    const [stored] = await h.container.passkeys.list(h.tenant.tenantId, user!.id);
    expect(stored!.lastUsedAt).not.toBeNull();
    await page.close();
  });
});
