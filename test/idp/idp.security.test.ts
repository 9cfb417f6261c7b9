import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { matchRedirect, normalizeAllowEntry } from '../../src/platform/http/redirect-allow.js';
import { CLIENT_URL, createIdpHarness, fragmentOf, type IdpHarness } from '../helpers/idp.js';
import { expectError, routeCases } from '../helpers/security.js';

let t: IdpHarness;
beforeAll(async () => {
  t = await createIdpHarness();
}, 60_000);
afterAll(async () => t?.close());

routeCases(() => t.h, 'GET /auth/idp/config', { url: () => '/auth/idp/config', accepts: { apiKey: true, bearer: 'admin' } });

describe('GET /auth/idp (public, tenant-scoped)', () => {
  const url = () => `/auth/idp?redirectUrl=${encodeURIComponent(CLIENT_URL)}`;
  it('401 without x-tenant-id, and with an unknown or malformed tenant', async () => {
    expectError(await t.h.inject({ method: 'GET', url: url() }), 401, 'TENANT_REQUIRED');
    expectError(await t.h.inject({ method: 'GET', url: url(), headers: { 'x-tenant-id': randomUUID() } }), 401, 'TENANT_UNKNOWN');
    expectError(await t.h.inject({ method: 'GET', url: url(), headers: { 'x-tenant-id': "x' or 1=1" } }), 401, 'TENANT_UNKNOWN');
  });
  it('is limited per client address (429 with Retry-After)', async () => {
    const tenant = await t.h.newTenant();
    await t.configure(tenant);
    let last = 0;
    for (let i = 0; i < 31; i++) last = (await t.h.inject({ method: 'GET', url: url(), headers: { 'x-tenant-id': tenant.tenantId } })).statusCode;
    expect(last).toBe(429);
  }, 60_000);
});

describe('IdP login isolation and secrecy', () => {
  it('the client secret and PKCE verifier are stored sealed, never in clear', async () => {
    await t.start();
    const db = t.h.database.db;
    const rows = (r: unknown) => (r as { rows: Array<Record<string, unknown>> }).rows;
    // The provider's settings are in provider_settings (kind idp), the secret sealed with the others.
    const config = rows(await db.execute(sql.raw(`select * from provider_settings where tenant_id = '${t.h.tenant.tenantId}' and kind = 'idp'`)))[0]!;
    expect(JSON.stringify(config)).not.toContain(t.op.clientSecret);
    const opened = JSON.parse(await t.h.container.secrets.decrypt(String(config.secrets_sealed), `provider:${t.h.tenant.tenantId}:idp:oidc`)) as Record<string, string>;
    expect(opened['client-secret']).toBe(t.op.clientSecret);
    const state = rows(await db.execute(sql.raw(`select * from idp_login_states where tenant_id = '${t.h.tenant.tenantId}' limit 1`)))[0]!;
    expect(String(state.code_verifier_sealed)).not.toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(String(state.state_hash)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('the same provider account logs into separate users in separate tenants', async () => {
    const other = await t.h.newTenant();
    await t.configure(other);
    const sub = `shared-${randomUUID()}`;
    t.op.accounts.set(sub, { email: `${sub}@idp.example`, email_verified: true });
    const a = fragmentOf(await t.callback(await t.browser().signIn(await t.start(CLIENT_URL, t.h.tenant), sub)));
    const b = fragmentOf(await t.callback(await t.browser().signIn(await t.start(CLIENT_URL, other), sub)));
    const meA = (await (await fetch(`${t.h.baseUrl}/users/me`, { headers: t.h.bearerHeaders(a.get('accessToken')!, t.h.tenant) })).json()) as { id: string };
    const meB = (await (await fetch(`${t.h.baseUrl}/users/me`, { headers: t.h.bearerHeaders(b.get('accessToken')!, other) })).json()) as { id: string };
    expect(meA.id).not.toBe(meB.id);
    // Tenant A's token is not a credential for tenant B.
    const cross = await fetch(`${t.h.baseUrl}/users/me`, { headers: t.h.bearerHeaders(a.get('accessToken')!, other) });
    expect(cross.status).toBe(401);
  }, 60_000);

  it('an ID token whose signature does not verify against the provider JWKS is refused', async () => {
    // A fresh service (nothing cached) facing a provider whose JWKS holds another key under the same kid.
    const fresh = await createIdpHarness();
    try {
      fresh.op.serveForeignJwks = true;
      const sub = `sig-${randomUUID()}`;
      fresh.op.accounts.set(sub, { email: `${sub}@idp.example`, email_verified: true });
      const jwks = (await (await fetch(`${fresh.op.issuer}/jwks`)).json()) as { keys: Array<{ kid: string }> };
      expect(jwks.keys[0]?.kid).toBe('test-key');
      const counts = await fresh.counts();
      const res = await fresh.callback(await fresh.browser().signIn(await fresh.start(), sub));
      expect(fragmentOf(res).get('error')).toBe('invalid_id_token');
      expect(await fresh.counts()).toEqual(counts);
      const logged = fresh.h.logs.lines.filter((line) => line.includes('idp login failed')).at(-1);
      expect(logged).toMatch(/signature/i);
    } finally {
      await fresh.close();
    }
  }, 90_000);

  it('no code, state, token or client secret reaches the logs', async () => {
    const sub = `logs-${randomUUID()}`;
    t.op.accounts.set(sub, { email: `${sub}@idp.example`, email_verified: true });
    const callbackUrl = await t.browser().signIn(await t.start(), sub);
    const fragment = fragmentOf(await t.callback(callbackUrl));
    const query = new URL(callbackUrl).searchParams;
    const logs = t.h.logs.text();
    expect(logs).toContain('/auth/idp/callback');
    for (const secret of [query.get('code')!, query.get('state')!, fragment.get('accessToken')!, fragment.get('refreshToken')!, t.op.clientSecret]) {
      expect(logs).not.toContain(secret);
    }
  }, 60_000);
});

describe('redirect allow-list matching', () => {
  const allow = ['https://app.example/cb', 'http://localhost:3000/', 'https://other.example/x/'];
  it.each([
    ['https://app.example/cb', true],
    ['https://app.example/cb/', true],
    ['https://app.example/cb/deeper?x=1', true],
    ['https://APP.example:443/cb', true],
    ['https://app.example/cbx', false],
    ['https://app.example/CB', false],
    ['https://app.example/c', false],
    ['https://app.example/cb/../admin', false],
    ['https://app.example.evil.example/cb', false],
    ['https://evil.example/cb?https://app.example/cb', false],
    ['http://localhost:3000/anything', true],
    ['http://localhost:3001/', false],
    ['https://other.example/x/y', true],
    ['https://other.example/x', false],
    ['https://user:pass@app.example/cb', false],
    ['ftp://app.example/cb', false],
    ['https://app.example/cb#frag', false],
    ['https://app.example/cb\\..\\admin', false],
    [' https://app.example/cb', false],
  ])('%s -> %s', (url, admitted) => {
    expect(matchRedirect(url, allow) !== undefined).toBe(admitted);
  });

  it('allow-list entries must be https (http on loopback only), without query or fragment', () => {
    expect(normalizeAllowEntry('https://app.example/cb')).toEqual({ entry: 'https://app.example/cb' });
    expect(normalizeAllowEntry('https://app.example')).toEqual({ entry: 'https://app.example/' });
    expect(normalizeAllowEntry('http://127.0.0.1:8080/cb')).toEqual({ entry: 'http://127.0.0.1:8080/cb' });
    for (const bad of ['http://app.example/cb', 'https://app.example/cb?x=1', 'https://app.example/cb#x', 'app.example/cb', 'https://u:p@app.example/']) {
      expect(normalizeAllowEntry(bad)).toHaveProperty('problem');
    }
  });
});
