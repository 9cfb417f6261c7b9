import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outbox } from '../helpers/outbox.js';
import { CLIENT_URL, createIdpHarness, fragmentOf, type IdpHarness } from '../helpers/idp.js';
import { auditEvents } from '../helpers/read.js';

describe('IdP login against a real OpenID provider (oidc-provider on loopback)', () => {
  let t: IdpHarness;
  beforeAll(async () => {
    t = await createIdpHarness();
  }, 60_000);
  afterAll(async () => t?.close());

  it('GET /auth/idp answers the authorization URL with PKCE S256, a nonce and a base64url state', async () => {
    const res = await fetch(`${t.h.baseUrl}/auth/idp?redirectUrl=${encodeURIComponent(CLIENT_URL)}`, { headers: { 'x-tenant-id': t.h.tenant.tenantId } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { authorizationUrl: string; expiresAt: string };
    const url = new URL(body.authorizationUrl);
    expect(url.origin).toBe(t.op.issuer);
    const q = url.searchParams;
    expect(q.get('client_id')).toBe(t.op.clientId);
    expect(q.get('response_type')).toBe('code');
    expect(q.get('redirect_uri')).toBe(`${t.h.baseUrl}/auth/idp/callback`);
    expect(q.get('scope')).toBe('openid email profile');
    expect(q.get('code_challenge_method')).toBe('S256');
    expect(q.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(q.get('nonce')).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(q.get('state')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(new Date(body.expiresAt).getTime() - t.h.clock.now().getTime()).toBe(10 * 60_000);
  });

  it('the whole flow: provider login and consent, callback, tokens in the fragment, then GET /users/me', async () => {
    const subject = `alice-${crypto.randomUUID()}`;
    const email = `${subject}@idp.example`;
    t.op.accounts.set(subject, { email, email_verified: true, name: 'Alice Example' });
    const callbackUrl = await t.browser().signIn(await t.start(), subject);
    expect(callbackUrl.startsWith(`${t.h.baseUrl}/auth/idp/callback?`)).toBe(true);
    expect(new URL(callbackUrl).searchParams.get('code')).toBeTruthy();

    const res = await t.callback(callbackUrl);
    expect(res.status).toBe(303);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const location = new URL(res.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(CLIENT_URL);
    expect(location.search).toBe(''); // tokens never travel in the query
    const fragment = fragmentOf(res);
    expect(fragment.get('tokenType')).toBe('Bearer');
    expect(Number(fragment.get('expiresIn'))).toBe(900);
    const accessToken = fragment.get('accessToken')!;
    expect(fragment.get('refreshToken')).toBeTruthy();

    const me = await fetch(`${t.h.baseUrl}/users/me`, { headers: t.h.bearerHeaders(accessToken) });
    expect(me.status).toBe(200);
    const user = (await me.json()) as { email: string; fullName: string; emailVerified: boolean; id: string };
    expect(user).toMatchObject({ email, fullName: 'Alice Example', emailVerified: true });

    // The refresh token works like any other.
    const refreshed = await fetch(`${t.h.baseUrl}/auth/refresh`, {
      method: 'POST',
      headers: { 'x-tenant-id': t.h.tenant.tenantId, 'content-type': 'application/json' },
      body: JSON.stringify({ refreshToken: fragment.get('refreshToken') }),
    });
    expect(refreshed.status).toBe(201);

    // A second login by the same (issuer, subject) finds the same user, even after the email changed at the provider.
    t.op.accounts.set(subject, { email: `changed-${email}`, email_verified: true });
    const again = fragmentOf(await t.callback(await t.browser().signIn(await t.start(), subject)));
    const me2 = await fetch(`${t.h.baseUrl}/users/me`, { headers: t.h.bearerHeaders(again.get('accessToken')!) });
    expect(((await me2.json()) as { id: string }).id).toBe(user.id);

    const events = await auditEvents(t.h, { userId: user.id, limit: 20 });
    const types = events.data.map((e: { type: string }) => e.type);
    expect(types).toContain('user.registered');
    expect(types.filter((type: string) => type === 'login.succeeded')).toHaveLength(2);
  }, 60_000);

  it('links an existing account with the same email when the provider asserts email_verified', async () => {
    const email = `bob-${crypto.randomUUID()}@example.com`;
    const userId = await t.h.createUser(t.h.tenant, email);
    const subject = `bob-${crypto.randomUUID()}`;
    t.op.accounts.set(subject, { email: email.toUpperCase(), email_verified: true });
    const before = await t.counts();
    const fragment = fragmentOf(await t.callback(await t.browser().signIn(await t.start(), subject)));
    const me = await fetch(`${t.h.baseUrl}/users/me`, { headers: t.h.bearerHeaders(fragment.get('accessToken')!) });
    const user = (await me.json()) as { id: string; emailVerified: boolean };
    expect(user.id).toBe(userId);
    expect(user.emailVerified).toBe(true);
    const verifiedEvents = (await outbox(t.h, undefined, 'user.email_verified')).filter((e) => (e.payload as { userId?: string }).userId === userId);
    expect(verifiedEvents).toHaveLength(1);
    const after = await t.counts();
    expect(after.users).toBe(before.users);
    expect(after.identities).toBe(before.identities + 1);
  }, 60_000);

  it('an account with 2FA gets the second-factor challenge in the fragment, not tokens', async () => {
    const email = `carol-${crypto.randomUUID()}@example.com`;
    const userId = await t.h.createUser(t.h.tenant, email);
    const { credentials } = await import('../../src/modules/auth/table.js');
    await t.h.database.db
      .insert(credentials)
      .values({ tenantId: t.h.tenant.tenantId, userId, twoFactorMethod: 'email', twoFactorEnabledAt: new Date() })
      .onConflictDoUpdate({ target: [credentials.tenantId, credentials.userId], set: { twoFactorMethod: 'email' } });
    const subject = `carol-${crypto.randomUUID()}`;
    t.op.accounts.set(subject, { email, email_verified: true });
    const sessionsBefore = (await t.counts()).sessions;
    const fragment = fragmentOf(await t.callback(await t.browser().signIn(await t.start(), subject)));
    expect(fragment.get('twoFactorRequired')).toBe('true');
    expect(fragment.get('challengeToken')).toBeTruthy();
    expect(fragment.get('accessToken')).toBeNull();
    expect((await t.counts()).sessions).toBe(sessionsBefore);
  }, 60_000);

  it('GET /auth/idp/config shows the settings to an admin with the secret masked', async () => {
    const res = await t.h.api(t.h.keyHeaders()).GET('/auth/idp/config');
    expect(res.response.status).toBe(200);
    expect(res.data).toMatchObject({
      issuer: t.op.issuer,
      clientId: t.op.clientId,
      clientSecret: '********',
      scopes: 'openid email profile',
      redirectAllow: [CLIENT_URL],
      callbackUrl: `${t.h.baseUrl}/auth/idp/callback`,
    });
    expect(JSON.stringify(res.data)).not.toContain(t.op.clientSecret);
    const adminId = await t.h.createUser(t.h.tenant, undefined, 'admin');
    const asAdmin = await t.h.api(t.h.bearerHeaders(await t.h.tokenFor(adminId))).GET('/auth/idp/config');
    expect(asAdmin.response.status).toBe(200);
  });
});
