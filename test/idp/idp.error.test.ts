import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_URL, createIdpHarness, fragmentOf, type IdpHarness } from '../helpers/idp.js';

describe('IdP login failures: each answers as described and creates no user and no session', () => {
  let t: IdpHarness;
  const subject = () => {
    const sub = `p-${crypto.randomUUID()}`;
    t.op.accounts.set(sub, { email: `${sub}@idp.example`, email_verified: true });
    return sub;
  };
  const stateRows = async () => {
    const result = await t.h.database.db.execute(sql.raw(`select count(*)::int as n from idp_login_states where tenant_id = '${t.h.tenant.tenantId}'`));
    return Number((result as unknown as { rows: Array<{ n: number }> }).rows[0]?.n);
  };
  const withState = (callbackUrl: string, state: string) => {
    const url = new URL(callbackUrl);
    url.searchParams.set('state', state);
    return url.toString();
  };

  beforeAll(async () => {
    t = await createIdpHarness();
  }, 60_000);
  afterAll(async () => t?.close());

  it.each([
    ['another host', 'https://evil.example/after-login'],
    ['another scheme', 'http://app.example/after-login'],
    ['another port', 'https://app.example:8443/after-login'],
    ['a longer path that is not below the prefix', 'https://app.example/after-login-evil'],
    ['a path outside the prefix', 'https://app.example/other'],
    ['dot segments out of the prefix', 'https://app.example/after-login/../evil'],
    ['encoded dot segments', 'https://app.example/after-login/%2e%2e/evil'],
    ['credentials smuggling another host', 'https://app.example@evil.example/after-login'],
    ['a backslash', 'https://app.example\\@evil.example/after-login'],
    ['a fragment', 'https://app.example/after-login#x'],
    ['a relative URL', '/after-login'],
    ['a javascript: URL', 'javascript:alert(1)'],
    ['a protocol-relative URL', '//evil.example/after-login'],
  ])('GET /auth/idp with %s as redirectUrl is a 400 and stores nothing', async (_name, redirectUrl) => {
    const before = await stateRows();
    const res = await t.h.inject({ method: 'GET', url: `/auth/idp?redirectUrl=${encodeURIComponent(redirectUrl)}`, headers: { 'x-tenant-id': t.h.tenant.tenantId } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ statusCode: 400, code: 'REDIRECT_URL_NOT_ALLOWED' });
    expect(await stateRows()).toBe(before);
  });

  it('admits paths below the allowed prefix and keeps their query', async () => {
    const res = await t.h.inject({
      method: 'GET',
      url: `/auth/idp?redirectUrl=${encodeURIComponent(`${CLIENT_URL}/deep?tab=1`)}`,
      headers: { 'x-tenant-id': t.h.tenant.tenantId },
    });
    expect(res.statusCode).toBe(200);
  });

  it('GET /auth/idp without redirectUrl, or with an unknown parameter, is a 400', async () => {
    const missing = await t.h.inject({ method: 'GET', url: '/auth/idp', headers: { 'x-tenant-id': t.h.tenant.tenantId } });
    expect(missing.statusCode).toBe(400);
    const extra = await t.h.inject({ method: 'GET', url: `/auth/idp?redirectUrl=${encodeURIComponent(CLIENT_URL)}&x=1`, headers: { 'x-tenant-id': t.h.tenant.tenantId } });
    expect(extra.statusCode).toBe(400);
  });

  it('a tenant without a provider gets 503 PROVIDER_NOT_CONFIGURED from GET /auth/idp and GET /auth/idp/config (one answer for every kind)', async () => {
    const other = await t.h.newTenant();
    const res = await t.h.inject({ method: 'GET', url: `/auth/idp?redirectUrl=${encodeURIComponent(CLIENT_URL)}`, headers: { 'x-tenant-id': other.tenantId } });
    expect(res.statusCode).toBe(503);
    expect(res.json().code).toBe('PROVIDER_NOT_CONFIGURED');
    const config = await t.h.inject({ method: 'GET', url: '/auth/idp/config', headers: t.h.keyHeaders(other) });
    expect(config.statusCode).toBe(503);
    expect(config.json().code).toBe('PROVIDER_NOT_CONFIGURED');
  });

  it('an unreachable provider answers 503 PROVIDER_UNAVAILABLE (retry later) and stores no state', async () => {
    const other = await t.h.newTenant();
    await t.h.container.idpConfig.set(other.tenantId, { issuer: 'http://127.0.0.1:1', clientId: 'x', clientSecret: 'y', redirectAllow: [CLIENT_URL] });
    const res = await t.h.inject({ method: 'GET', url: `/auth/idp?redirectUrl=${encodeURIComponent(CLIENT_URL)}`, headers: { 'x-tenant-id': other.tenantId } });
    expect(res.statusCode).toBe(503);
    expect(res.json().code).toBe('PROVIDER_UNAVAILABLE');
    expect(res.headers['retry-after']).toBeDefined();
  });

  it('a replayed state is a 400 (single use)', async () => {
    const callbackUrl = await t.browser().signIn(await t.start(), subject());
    expect((await t.callback(callbackUrl)).status).toBe(303);
    const counts = await t.counts();
    const replay = await t.callback(callbackUrl);
    expect(replay.status).toBe(400);
    expect(await replay.json()).toMatchObject({ code: 'IDP_STATE_INVALID', message: expect.stringMatching(/already used/) });
    expect(await t.counts()).toEqual(counts);
  }, 60_000);

  it('the same callback sent twice at once completes once', async () => {
    const callbackUrl = await t.browser().signIn(await t.start(), subject());
    const sessions = (await t.counts()).sessions;
    const statuses = (await Promise.all([t.callback(callbackUrl), t.callback(callbackUrl), t.callback(callbackUrl)])).map((r) => r.status);
    expect(statuses.sort()).toEqual([303, 400, 400]);
    expect((await t.counts()).sessions).toBe(sessions + 1);
  }, 60_000);

  it('a tampered, unknown or malformed state is a 400', async () => {
    const callbackUrl = await t.browser().signIn(await t.start(), subject());
    const state = new URL(callbackUrl).searchParams.get('state')!;
    const counts = await t.counts();
    const flipped = state.slice(0, 10) + (state[10] === 'A' ? 'B' : 'A') + state.slice(11);
    for (const bad of [flipped, 'A'.repeat(43)]) {
      const res = await t.callback(withState(callbackUrl, bad));
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ code: 'IDP_STATE_INVALID', message: expect.stringMatching(/Unknown or altered/) });
    }
    for (const malformed of [`${state}x`, `${state.slice(0, 42)}+`, '']) {
      const res = await t.callback(withState(callbackUrl, malformed));
      expect(res.status).toBe(400);
    }
    const none = new URL(callbackUrl);
    none.searchParams.delete('state');
    expect((await t.callback(none.toString())).status).toBe(400);
    expect(await t.counts()).toEqual(counts);
    // The genuine state was not burnt by the forgeries.
    expect((await t.callback(callbackUrl)).status).toBe(303);
  }, 60_000);

  it('an expired state (10 minutes, injected clock) is a 400', async () => {
    const authorizationUrl = await t.start();
    const callbackUrl = await t.browser().signIn(authorizationUrl, subject());
    const counts = await t.counts();
    t.h.clock.advance(10 * 60_000 + 1);
    const res = await t.callback(callbackUrl);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 'IDP_STATE_INVALID', message: expect.stringMatching(/expired/) });
    expect(await t.counts()).toEqual(counts);
  }, 60_000);

  it('a state presented with another tenant in x-tenant-id is a 400 and stays usable', async () => {
    const other = await t.h.newTenant();
    const callbackUrl = await t.browser().signIn(await t.start(), subject());
    const res = await t.callback(callbackUrl, { 'x-tenant-id': other.tenantId });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 'IDP_STATE_INVALID' });
    expect((await t.counts(other)).users).toBe(0);
    expect((await t.callback(callbackUrl, { 'x-tenant-id': t.h.tenant.tenantId })).status).toBe(303);
  }, 60_000);

  it('the provider answering error=access_denied redirects with #error=access_denied', async () => {
    const counts = await t.counts();
    const callbackUrl = await t.browser().signIn(await t.start(), subject(), 'abort');
    expect(new URL(callbackUrl).searchParams.get('error')).toBe('access_denied');
    const res = await t.callback(callbackUrl);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')!.startsWith(`${CLIENT_URL}#`)).toBe(true);
    const fragment = fragmentOf(res);
    expect(fragment.get('error')).toBe('access_denied');
    expect(fragment.get('accessToken')).toBeNull();
    expect(await t.counts()).toEqual(counts);
    // The state was used up by the refusal.
    expect((await t.callback(callbackUrl)).status).toBe(400);
  }, 60_000);

  it('an ID token with a wrong nonce is refused (#error=invalid_id_token)', async () => {
    const counts = await t.counts();
    const url = new URL(await t.start());
    url.searchParams.set('nonce', 'a-nonce-bastion-never-issued-000000');
    const res = await t.callback(await t.browser().signIn(url.toString(), subject()));
    expect(res.status).toBe(303);
    expect(fragmentOf(res).get('error')).toBe('invalid_id_token');
    expect(await t.counts()).toEqual(counts);
    const logged = t.h.logs.lines.filter((line) => line.includes('idp login failed')).at(-1);
    expect(logged).toContain('claim nonce');
  }, 60_000);

  it('an altered authorization code is refused by the token endpoint (#error=token_exchange_failed)', async () => {
    const counts = await t.counts();
    const callbackUrl = new URL(await t.browser().signIn(await t.start(), subject()));
    callbackUrl.searchParams.set('code', `${callbackUrl.searchParams.get('code')}x`);
    const res = await t.callback(callbackUrl.toString());
    expect(fragmentOf(res).get('error')).toBe('token_exchange_failed');
    expect(await t.counts()).toEqual(counts);
  }, 60_000);

  it('an unverified email that matches an existing account is refused, not taken over', async () => {
    const email = `victim-${crypto.randomUUID()}@example.com`;
    const victimId = await t.h.createUser(t.h.tenant, email);
    const sub = `attacker-${crypto.randomUUID()}`;
    t.op.accounts.set(sub, { email, email_verified: false });
    const counts = await t.counts();
    const res = await t.callback(await t.browser().signIn(await t.start(), sub));
    expect(res.status).toBe(303);
    const fragment = fragmentOf(res);
    expect(fragment.get('error')).toBe('email_not_verified');
    expect(fragment.get('error_description')).toMatch(/cannot be linked/);
    expect(fragment.get('accessToken')).toBeNull();
    expect(await t.counts()).toEqual(counts);
    const victim = await t.h.container.users.findRow(t.h.tenant.tenantId, victimId);
    expect(victim?.emailVerified).toBe(false);
    // An email_verified claim that is not exactly `true` counts as unverified too.
    t.op.accounts.set(sub, { email, email_verified: 'true' as unknown as boolean });
    expect(fragmentOf(await t.callback(await t.browser().signIn(await t.start(), sub))).get('error')).toBe('email_not_verified');
  }, 60_000);

  it('a provider that shares no email is refused (#error=email_required)', async () => {
    const sub = `noemail-${crypto.randomUUID()}`;
    t.op.accounts.set(sub, { name: 'No Email' });
    const counts = await t.counts();
    const res = await t.callback(await t.browser().signIn(await t.start(), sub));
    expect(fragmentOf(res).get('error')).toBe('email_required');
    expect(await t.counts()).toEqual(counts);
  }, 60_000);

  it('a new account from an unverified email is created unverified', async () => {
    const sub = `fresh-${crypto.randomUUID()}`;
    t.op.accounts.set(sub, { email: `${sub}@idp.example`, email_verified: false });
    const fragment = fragmentOf(await t.callback(await t.browser().signIn(await t.start(), sub)));
    const me = await fetch(`${t.h.baseUrl}/users/me`, { headers: t.h.bearerHeaders(fragment.get('accessToken')!) });
    expect(await me.json()).toMatchObject({ email: `${sub}@idp.example`, emailVerified: false });
  }, 60_000);

  it('a client URL removed from the allow-list after the request gets no redirect (400)', async () => {
    const callbackUrl = await t.browser().signIn(await t.start(), subject());
    await t.configure(t.h.tenant, ['https://app.example/elsewhere']);
    try {
      const counts = await t.counts();
      const res = await t.callback(callbackUrl);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ code: 'REDIRECT_URL_NOT_ALLOWED' });
      expect(await t.counts()).toEqual(counts);
    } finally {
      await t.configure();
    }
  }, 60_000);
});
