import { generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allowRedirects, APP_RETURN, configureBankLink } from '../helpers/bank-link.js';
import { createHarness, type Harness, type TestTenant } from '../helpers/harness.js';
import { expectError } from '../helpers/security.js';
import { configureBusinessProfile } from '../entities/bp-helpers.js';
import { configureIdv } from '../helpers/kyc.js';
import { entityOf, TIN } from '../entities/fixtures.js';

// A provider that answers 2xx with a body of another shape (JSON of the wrong shape, `null`,
// an HTML page) must make the route answer 502 with that provider's error code, never 500.
// The fake provider is a server on loopback that answers every request 200 with the junk of
// the moment.

const JUNK: Record<string, { type: string; body: string }> = {
  'JSON of another shape': { type: 'application/json', body: '{"ok":true}' },
  'JSON null': { type: 'application/json', body: 'null' },
  'an HTML page': { type: 'text/html', body: '<!doctype html><html><body>Maintenance</body></html>' },
};

let h: Harness;
let fake: Server;
let fakeUrl: string;
let junk = JUNK['JSON of another shape']!;
let requests = 0;
let discovery = false;

beforeAll(async () => {
  fake = createServer((req, res) => {
    requests++;
    req.resume();
    req.on('end', () => {
      if (discovery && req.url === '/.well-known/openid-configuration') {
        // A well-formed discovery document whose endpoints (token, keys) answer junk.
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({
          issuer: fakeUrl, authorization_endpoint: `${fakeUrl}/authorize`, token_endpoint: `${fakeUrl}/token`, jwks_uri: `${fakeUrl}/jwks`,
          response_types_supported: ['code'], subject_types_supported: ['public'], id_token_signing_alg_values_supported: ['RS256'],
        }));
        return;
      }
      res.writeHead(200, { 'content-type': junk.type });
      res.end(junk.body);
    });
  });
  await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
  fakeUrl = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
  h = await createHarness({ listen: true });
}, 120_000);
afterAll(async () => {
  await h?.close();
  await new Promise((resolve) => fake.close(resolve));
});

/** Runs `check` once per kind of junk, and proves the fake provider was asked. */
async function eachJunk(check: (kind: string) => Promise<void>): Promise<void> {
  for (const [kind, answer] of Object.entries(JUNK)) {
    junk = answer;
    const before = requests;
    await check(kind);
    expect(requests, `${kind}: the fake provider was asked`).toBeGreaterThan(before);
  }
}

function expectProviderError(res: { statusCode: number; body: string; json: () => unknown }, code: string, kind: string): void {
  expect(res.statusCode, `${kind}: ${res.body}`).toBe(502);
  expectError(res, 502, code);
}

describe('a provider answering 200 with junk', () => {
  it('bank-link (plaid): link-token, tenant link-token and public-token exchange answer 502 BANK_LINK_PROVIDER_ERROR', async () => {
    const t = await h.newTenant();
    await configureBankLink(h, t.tenantId, { baseUrl: fakeUrl, environment: 'sandbox', clientId: 'c'.repeat(24), secret: 's'.repeat(30) });
    await allowRedirects(h, t.tenantId, [APP_RETURN]);
    const user = h.bearerHeaders(await h.tokenFor(await h.createUser(t), t), t);
    const q = encodeURIComponent(APP_RETURN);
    await eachJunk(async (kind) => {
      expectProviderError(await h.inject({ method: 'GET', url: `/bank-link/link-token?redirectUrl=${q}`, headers: user }), 'BANK_LINK_PROVIDER_ERROR', kind);
      expectProviderError(await h.inject({ method: 'GET', url: `/bank-link/tenant/link-token?redirectUrl=${q}`, headers: h.keyHeaders(t) }), 'BANK_LINK_PROVIDER_ERROR', kind);
      expectProviderError(await h.inject({ method: 'POST', url: '/bank-link/public-token', headers: user, payload: { publicToken: 'public-x' } }), 'BANK_LINK_PROVIDER_ERROR', kind);
    });
  });

  it('custody-a: opening a vault answers 502 CUSTODY_PROVIDER_ERROR', async () => {
    const t = await h.newTenant();
    const { privateKey } = generateKeyPairSync('ed25519');
    await h.container.platform.providerSettings.configure(t.tenantId, 'custody', 'custody-a', {
      baseUrl: fakeUrl,
      settings: { apiKey: 'key-1' },
      secrets: { signingKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() },
    });
    const userId = await h.createUser(t);
    await eachJunk(async (kind) => {
      expectProviderError(await h.inject({ method: 'POST', url: '/evm-vaults', headers: h.keyHeaders(t), payload: { userId } }), 'CUSTODY_PROVIDER_ERROR', kind);
    });
  });

  it('custody-b: a registration challenge answers 502 CUSTODY_B_PROVIDER_UNAVAILABLE', async () => {
    const t = await h.newTenant();
    const sandbox = h.container.sandboxes.custodyB;
    const conn = await sandbox.connection(t.tenantId);
    await h.container.platform.providerSettings.configure(t.tenantId, 'custody-b', 'custody-b', {
      baseUrl: fakeUrl,
      settings: { appId: conn.appId, serviceCredId: conn.serviceCredId, network: 'BaseSepolia' },
      secrets: { serviceToken: conn.serviceToken, servicePrivateKey: conn.servicePrivateKeyPem },
    });
    const headers = h.bearerHeaders(await h.tokenFor(await h.createUser(t), t), t);
    await eachJunk(async (kind) => {
      expectProviderError(await h.inject({ method: 'GET', url: '/custody-b/users/challenge', headers }), 'CUSTODY_B_PROVIDER_UNAVAILABLE', kind);
    });
  });

  it('idv-a and idv-b: starting a session answers 502 KYC_PROVIDER_ERROR', async () => {
    const t: TestTenant = await h.newTenant();
    for (const provider of ['idv-a', 'idv-b'] as const) {
      await configureIdv(h, t.tenantId, provider, { baseUrl: fakeUrl, clientId: 'client-1', webhookSecret: 'w'.repeat(32) });
    }
    await eachJunk(async (kind) => {
      const headers = h.bearerHeaders(await h.tokenFor(await h.createUser(t), t), t);
      expectProviderError(await h.inject({ method: 'POST', url: '/kyc/idv-a/session', headers, payload: { firstName: 'Grace' } }), 'KYC_PROVIDER_ERROR', kind);
      expectProviderError(await h.inject({ method: 'POST', url: '/kyc/idv-b/regular-challenge', headers, payload: {} }), 'KYC_PROVIDER_ERROR', kind);
    });
  });

  it('business-profile-a: submitting a business profile answers 502 BUSINESS_PROFILE_PROVIDER_ERROR', async () => {
    const t = await h.newTenant();
    await configureBusinessProfile(h, t.tenantId, { baseUrl: fakeUrl, apiKey: 'sk_live_junk', webhookSecret: 'w'.repeat(32) });
    await eachJunk(async (kind) => {
      const { entityId, owner } = await entityOf(h, t);
      const res = await h.inject({ method: 'POST', url: `/entities/${entityId}/business-profile-a`, headers: owner.headers, payload: { tin: TIN, people: [{ name: 'Jane Doe' }] } });
      expectProviderError(res, 'BUSINESS_PROFILE_PROVIDER_ERROR', kind);
    });
  });

  it('the IdP (OpenID discovery): starting a login answers 502 IDP_UNAVAILABLE', async () => {
    const t = await h.newTenant();
    await h.container.idpConfig.set(t.tenantId, { issuer: fakeUrl, clientId: 'x', clientSecret: 'y', redirectAllow: [APP_RETURN] });
    await eachJunk(async (kind) => {
      const res = await h.inject({ method: 'GET', url: `/auth/idp?redirectUrl=${encodeURIComponent(APP_RETURN)}`, headers: { 'x-tenant-id': t.tenantId } });
      expectProviderError(res, 'IDP_UNAVAILABLE', kind);
    });
  });

  it('the IdP (token endpoint): the callback redirects to the client with an error, never a 500', async () => {
    const t = await h.newTenant();
    discovery = true;
    try {
      await h.container.idpConfig.set(t.tenantId, { issuer: fakeUrl, clientId: 'x2', clientSecret: 'y2', redirectAllow: [APP_RETURN] });
      await eachJunk(async (kind) => {
        const start = await h.inject({ method: 'GET', url: `/auth/idp?redirectUrl=${encodeURIComponent(APP_RETURN)}`, headers: { 'x-tenant-id': t.tenantId } });
        expect(start.statusCode, `${kind}: ${start.body}`).toBe(200);
        const state = new URL(start.json().authorizationUrl).searchParams.get('state')!;
        const callback = await h.inject({ method: 'GET', url: `/auth/idp/callback?code=abc&state=${encodeURIComponent(state)}&iss=${encodeURIComponent(fakeUrl)}` });
        expect(callback.statusCode, `${kind}: ${callback.body}`).toBe(303);
        expect(String(callback.headers.location), kind).toMatch(/#.*error=(token_exchange_failed|invalid_id_token|temporarily_unavailable)/);
      });
    } finally {
      discovery = false;
    }
  });
});
