import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { auditEvents } from '../../src/modules/audit/table.js';
import { createHarness, type Harness, type TestTenant } from '../helpers/harness.js';
import { routeCases } from '../helpers/security.js';
import { SoftAuthenticator } from '../helpers/soft-authenticator.js';

const APP = 'https://app.acme.example';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
  await h.container.tenants.setAppUrl(h.tenant.tenantId, `${APP}/mail-links`);
});
afterAll(async () => h?.close());

type Json = Record<string, unknown>;
const post = (url: string, headers: Record<string, string>, payload: unknown = {}) => h.inject({ method: 'POST', url, headers, payload: payload as Json });
const publicHeaders = (t: TestTenant = h.tenant) => ({ 'x-tenant-id': t.tenantId });

/** A user with a bearer token, and a passkey registered through the API. */
async function userWithPasskey(name = 'Laptop', t: TestTenant = h.tenant) {
  const userId = await h.createUser(t);
  const headers = h.bearerHeaders(await h.tokenFor(userId, t), t);
  const auth = new SoftAuthenticator(APP);
  const begin = await post('/auth/passkeys/register/begin', headers, { name });
  expect(begin.statusCode).toBe(201);
  const finish = await post('/auth/passkeys/register/finish', headers, { credential: auth.register(begin.json().options) });
  expect(finish.statusCode, finish.body).toBe(201);
  return { userId, headers, auth, passkey: finish.json() as Json };
}

async function auditTypes(userId: string): Promise<string[]> {
  const rows = await h.database.db
    .select()
    .from(auditEvents)
    .where(and(eq(auditEvents.tenantId, h.tenant.tenantId), eq(auditEvents.subjectUserId, userId)));
  return rows.map((r) => r.type);
}

async function loginWith(auth: SoftAuthenticator, t: TestTenant = h.tenant, overrides: { origin?: string; step?: number } = {}) {
  const begin = await post('/auth/passkeys/login/begin', publicHeaders(t));
  expect(begin.statusCode).toBe(201);
  const credential = auth.assert(begin.json().options, overrides);
  return { begin: begin.json(), credential, answer: await post('/auth/passkeys/login/finish', publicHeaders(t), { credential }) };
}

// The routes' shared cases: tenant and credential refusals, malformed input from the schema,
// and another tenant's passkey (404, still there).
let foreignPasskey: { tenant: TestTenant; userId: string; id: string } | undefined;
async function foreignPasskeyUrl() {
  if (!foreignPasskey) {
    const tenant = await h.newTenant();
    await h.container.tenants.setAppUrl(tenant.tenantId, APP);
    const made = await userWithPasskey('Foreign', tenant);
    foreignPasskey = { tenant, userId: made.userId, id: made.passkey.id as string };
  }
  return `/auth/passkeys/${foreignPasskey.id}`;
}
const sampleRegistration = new SoftAuthenticator(APP).register({ challenge: 'c2FtcGxlLWNoYWxsZW5nZQ', rp: {}, user: { id: 'AAAAAAAAAAAAAAAAAAAAAA' } });
const user = { bearer: 'user' } as const;
routeCases(() => h, 'GET /auth/passkeys', { url: () => '/auth/passkeys', accepts: user });
routeCases(() => h, 'POST /auth/passkeys/register/begin', { url: () => '/auth/passkeys/register/begin', payload: () => ({ name: 'Laptop' }), accepts: user });
routeCases(() => h, 'POST /auth/passkeys/register/finish', { url: () => '/auth/passkeys/register/finish', payload: () => ({ name: 'Laptop', credential: sampleRegistration }), accepts: user });
routeCases(() => h, 'DELETE /auth/passkeys/{passkeyId}', {
  url: () => `/auth/passkeys/${foreignPasskey?.id ?? '00000000-0000-7000-8000-000000000000'}`,
  accepts: user,
  foreign: foreignPasskeyUrl,
  unchanged: async () => {
    expect((await h.container.passkeys.list(foreignPasskey!.tenant.tenantId, foreignPasskey!.userId)).map((p) => p.id)).toEqual([foreignPasskey!.id]);
  },
});

describe('passkey registration', () => {
  it("answers creation options for the tenant's app URL: its host is the relying party, discoverable and user-verified, existing passkeys excluded", async () => {
    const { headers, auth } = await userWithPasskey();
    const begin = await post('/auth/passkeys/register/begin', headers, {});
    expect(begin.statusCode).toBe(201);
    const { options, expiresAt } = begin.json();
    expect(options.rp).toEqual({ id: 'app.acme.example', name: expect.any(String) });
    expect(options.authenticatorSelection).toMatchObject({ residentKey: 'required', userVerification: 'required' });
    expect(options.challenge).toMatch(/^[A-Za-z0-9_-]{32,}$/);
    expect(options.excludeCredentials).toEqual([expect.objectContaining({ id: auth.id, type: 'public-key' })]);
    expect(new Date(expiresAt).getTime() - h.clock.now().getTime()).toBe(5 * 60_000);
  });

  it('several named passkeys per account, listed without key material, removed by their owner only (another user gets 404)', async () => {
    const owner = await userWithPasskey('Laptop');
    const auth2 = new SoftAuthenticator(APP);
    const begin = await post('/auth/passkeys/register/begin', owner.headers, {});
    const second = await post('/auth/passkeys/register/finish', owner.headers, { credential: auth2.register(begin.json().options), name: 'Phone' });
    expect(second.statusCode).toBe(201);
    const list = await h.inject({ method: 'GET', url: '/auth/passkeys', headers: owner.headers });
    expect(list.json().data.map((p: Json) => p.name)).toEqual(['Laptop', 'Phone']);
    expect(list.json().data[0]).toMatchObject({ deviceType: 'singleDevice', backedUp: false, transports: ['internal'], lastUsedAt: null });
    expect(list.body).not.toMatch(/publicKey|credentialId|counter/);

    const other = await userWithPasskey('Other');
    const foreign = await h.inject({ method: 'DELETE', url: `/auth/passkeys/${owner.passkey.id}`, headers: other.headers });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json().code).toBe('PASSKEY_NOT_FOUND');
    expect((await h.inject({ method: 'GET', url: '/auth/passkeys', headers: owner.headers })).json().data).toHaveLength(2);

    const removed = await h.inject({ method: 'DELETE', url: `/auth/passkeys/${owner.passkey.id}`, headers: owner.headers });
    expect(removed.statusCode).toBe(204);
    expect((await h.inject({ method: 'DELETE', url: `/auth/passkeys/${owner.passkey.id}`, headers: owner.headers })).statusCode).toBe(404);
    // A removed passkey no longer logs in.
    expect((await loginWith(owner.auth)).answer.json().code).toBe('PASSKEY_LOGIN_FAILED');
    expect(await auditTypes(owner.userId)).toEqual(expect.arrayContaining(['passkey.registered', 'passkey.registered', 'passkey.removed']));
  });

  it('needs a bearer token: an API key, none, or a token of another tenant is refused', async () => {
    expect((await post('/auth/passkeys/register/begin', publicHeaders(), {})).statusCode).toBe(401);
    expect((await post('/auth/passkeys/register/begin', h.keyHeaders(), {})).statusCode).toBe(403);
    expect((await h.inject({ method: 'GET', url: '/auth/passkeys', headers: h.keyHeaders() })).statusCode).toBe(403);
    const other = await h.newTenant();
    const userId = await h.createUser();
    const token = await h.tokenFor(userId);
    expect((await post('/auth/passkeys/register/begin', h.bearerHeaders(token, other), {})).statusCode).toBe(401);
  });

  it("a registration challenge is single use, expires, and is the beginner's: another user, a login, or a replay cannot spend it", async () => {
    const a = await userWithPasskey();
    const b = await userWithPasskey();
    const auth = new SoftAuthenticator(APP);
    const begin = (await post('/auth/passkeys/register/begin', a.headers, {})).json();
    const response = auth.register(begin.options);
    // Another user presenting a's challenge: refused, and it spends it (claimed before the check).
    const stolen = await post('/auth/passkeys/register/finish', b.headers, { credential: response });
    expect(stolen.statusCode).toBe(400);
    expect(stolen.json().code).toBe('PASSKEY_CHALLENGE_INVALID');
    expect((await post('/auth/passkeys/register/finish', a.headers, { credential: response })).json().code).toBe('PASSKEY_CHALLENGE_INVALID');

    const fresh = (await post('/auth/passkeys/register/begin', a.headers, {})).json();
    const ok = await post('/auth/passkeys/register/finish', a.headers, { credential: auth.register(fresh.options) });
    expect(ok.statusCode).toBe(201);
    expect((await post('/auth/passkeys/register/finish', a.headers, { credential: auth.register(fresh.options) })).json().code).toBe('PASSKEY_CHALLENGE_INVALID');

    const late = (await post('/auth/passkeys/register/begin', a.headers, {})).json();
    h.clock.advance(5 * 60_000 + 1);
    try {
      const expired = await post('/auth/passkeys/register/finish', a.headers, { credential: new SoftAuthenticator(APP).register(late.options) });
      expect(expired.json().code).toBe('PASSKEY_CHALLENGE_INVALID');
    } finally {
      h.clock.advance(-(5 * 60_000 + 1));
    }
    // A login challenge is not a registration challenge.
    const loginBegin = (await post('/auth/passkeys/login/begin', publicHeaders())).json();
    expect((await post('/auth/passkeys/register/finish', a.headers, { credential: new SoftAuthenticator(APP).register({ ...loginBegin.options, rp: {}, user: { id: 'AAAA' } }) })).json().code).toBe(
      'PASSKEY_CHALLENGE_INVALID',
    );
  });

  it('refuses a response from another origin or relying party, without user verification, or of a credential registered already', async () => {
    const { headers, auth } = await userWithPasskey();
    const cases: [SoftAuthenticator, { origin?: string; rpId?: string }][] = [
      [new SoftAuthenticator(APP), { origin: 'https://evil.example' }],
      [new SoftAuthenticator(APP), { rpId: 'evil.example' }],
      [Object.assign(new SoftAuthenticator(APP), { userVerified: false }), {}],
    ];
    for (const [authenticator, overrides] of cases) {
      const begin = (await post('/auth/passkeys/register/begin', headers, {})).json();
      const answer = await post('/auth/passkeys/register/finish', headers, { credential: authenticator.register(begin.options, overrides) });
      expect(answer.statusCode, JSON.stringify(overrides)).toBe(400);
      expect(answer.json().code).toBe('PASSKEY_VERIFICATION_FAILED');
    }
    const again = (await post('/auth/passkeys/register/begin', headers, {})).json();
    const dup = await post('/auth/passkeys/register/finish', headers, { credential: auth.register(again.options) });
    expect(dup.statusCode).toBe(409);
    expect(dup.json().code).toBe('PASSKEY_ALREADY_REGISTERED');
  });

  it('refuses malformed input with 400 before any work', async () => {
    const { headers, auth } = await userWithPasskey();
    const begin = (await post('/auth/passkeys/register/begin', headers, {})).json();
    const good = auth.register(begin.options);
    const bad: unknown[] = [
      {},
      { credential: { ...good, type: 'password' } },
      { credential: { ...good, response: { ...good.response, clientDataJSON: 'not base64url!' } } },
      { credential: good, extra: true },
      { credential: good, name: '' },
      { credential: { ...good, response: { ...good.response, attestationObject: undefined } } },
    ];
    for (const payload of bad) {
      const answer = await post('/auth/passkeys/register/finish', headers, payload);
      expect(answer.statusCode, JSON.stringify(payload).slice(0, 80)).toBe(400);
    }
    // Well-formed base64url that is no client data.
    const garbage = await post('/auth/passkeys/register/finish', headers, { credential: { ...good, response: { ...good.response, clientDataJSON: 'AAAA' } } });
    expect(garbage.json().code).toBe('PASSKEY_CHALLENGE_INVALID');
    expect((await h.inject({ method: 'DELETE', url: '/auth/passkeys/not-a-uuid', headers })).statusCode).toBe(400);
  });
});

describe('passkey login', () => {
  it('logs in without email or password: the token pair of POST /auth/login, which reads /users/me; last use and counter stored', async () => {
    const { userId, auth, headers } = await userWithPasskey();
    const { answer } = await loginWith(auth);
    expect(answer.statusCode, answer.body).toBe(201);
    expect(answer.json()).toMatchObject({ accessToken: expect.stringMatching(/^ey/), refreshToken: expect.any(String), tokenType: 'Bearer', expiresIn: 900 });
    const me = await h.inject({ method: 'GET', url: '/users/me', headers: h.bearerHeaders(answer.json().accessToken) });
    expect(me.json().id).toBe(userId);
    const [listed] = (await h.inject({ method: 'GET', url: '/auth/passkeys', headers })).json().data;
    expect(listed.lastUsedAt).not.toBeNull();
  });

  it('a passkey answers the pair even with email 2FA on (it is itself two factors)', async () => {
    const { userId, auth } = await userWithPasskey();
    const { credentials } = await import('../../src/modules/auth/table.js');
    await h.database.db.insert(credentials).values({ tenantId: h.tenant.tenantId, userId, twoFactorMethod: 'email', twoFactorEnabledAt: new Date() });
    const { answer } = await loginWith(auth);
    expect(answer.statusCode).toBe(201);
    expect(answer.json().accessToken).toMatch(/^ey/);
  });

  it('the login challenge is single use and expires; an assertion replayed is refused', async () => {
    const { auth } = await userWithPasskey();
    const first = await loginWith(auth);
    expect(first.answer.statusCode).toBe(201);
    const replay = await post('/auth/passkeys/login/finish', publicHeaders(), { credential: first.credential });
    expect(replay.statusCode).toBe(400);
    expect(replay.json().code).toBe('PASSKEY_CHALLENGE_INVALID');

    const begin = (await post('/auth/passkeys/login/begin', publicHeaders())).json();
    h.clock.advance(5 * 60_000 + 1);
    try {
      const late = await post('/auth/passkeys/login/finish', publicHeaders(), { credential: auth.assert(begin.options) });
      expect(late.json().code).toBe('PASSKEY_CHALLENGE_INVALID');
    } finally {
      h.clock.advance(-(5 * 60_000 + 1));
    }
  });

  it('a cloned authenticator (counter not advancing) is refused and audited', async () => {
    const { userId, auth } = await userWithPasskey();
    expect((await loginWith(auth, h.tenant, { step: 5 })).answer.statusCode).toBe(201);
    const clone = await loginWith(auth, h.tenant, { step: -2 });
    expect(clone.answer.statusCode).toBe(401);
    expect(clone.answer.json().code).toBe('PASSKEY_LOGIN_FAILED');
    const same = await loginWith(auth, h.tenant, { step: 0 });
    expect(same.answer.json().code).toBe('PASSKEY_LOGIN_FAILED');
    expect((await auditTypes(userId)).filter((t) => t === 'passkey.clone_suspected')).toHaveLength(2);
    // The genuine authenticator, ahead again, still logs in.
    expect((await loginWith(auth, h.tenant, { step: 10 })).answer.statusCode).toBe(201);
  });

  it("a passkey of one tenant does not log in to another; another origin, a wrong signature or a foreign user handle are refused", async () => {
    const { auth } = await userWithPasskey();
    const other = await h.newTenant();
    await h.container.tenants.setAppUrl(other.tenantId, APP);
    const foreign = await loginWith(auth, other);
    expect(foreign.answer.statusCode).toBe(401);
    expect(foreign.answer.json().code).toBe('PASSKEY_LOGIN_FAILED');
    // A login challenge of the other tenant cannot be spent here.
    const otherBegin = (await post('/auth/passkeys/login/begin', publicHeaders(other))).json();
    const cross = await post('/auth/passkeys/login/finish', publicHeaders(), { credential: auth.assert(otherBegin.options) });
    expect(cross.json().code).toBe('PASSKEY_CHALLENGE_INVALID');

    expect((await loginWith(auth, h.tenant, { origin: 'https://evil.example' })).answer.json().code).toBe('PASSKEY_LOGIN_FAILED');
    const begin = (await post('/auth/passkeys/login/begin', publicHeaders())).json();
    const forged = auth.assert(begin.options);
    forged.response.signature = Buffer.from('3006020101020101', 'hex').toString('base64url');
    expect((await post('/auth/passkeys/login/finish', publicHeaders(), { credential: forged })).json().code).toBe('PASSKEY_LOGIN_FAILED');
    const begin2 = (await post('/auth/passkeys/login/begin', publicHeaders())).json();
    const mismatch = auth.assert(begin2.options);
    mismatch.response.userHandle = Buffer.alloc(16, 7).toString('base64url');
    expect((await post('/auth/passkeys/login/finish', publicHeaders(), { credential: mismatch })).json().code).toBe('PASSKEY_LOGIN_FAILED');
    // Without user verification.
    const lazy = Object.assign(auth, { userVerified: false });
    expect((await loginWith(lazy)).answer.json().code).toBe('PASSKEY_LOGIN_FAILED');
  });

  it('an unknown credential and malformed input are refused', async () => {
    const stranger = new SoftAuthenticator(APP);
    const { answer } = await loginWith(stranger);
    expect(answer.statusCode).toBe(401);
    const begin = (await post('/auth/passkeys/login/begin', publicHeaders())).json();
    const good = stranger.assert(begin.options);
    for (const payload of [{}, { credential: { ...good, response: { ...good.response, signature: '' } } }, { credential: { ...good, id: 'a b' } }, { credential: good, more: 1 }]) {
      expect((await post('/auth/passkeys/login/finish', publicHeaders(), payload)).statusCode).toBe(400);
    }
    expect((await post('/auth/passkeys/login/begin', {})).statusCode).toBe(401);
  });
});

describe('relying party', () => {
  it("without an app URL the relying party is the host of the public base URL", async () => {
    const t = await h.newTenant();
    const begin = await post('/auth/passkeys/login/begin', publicHeaders(t));
    expect(begin.json().options.rpId).toBe(new URL(h.container.config.publicBaseUrl).hostname);
  });
});
