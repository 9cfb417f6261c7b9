import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { bankLinkItems } from '../../src/modules/bank-link/table.js';
import { createHarness, type Harness, type TestTenant } from '../helpers/harness.js';
import { outbox } from '../helpers/outbox.js';
import { expectError } from '../helpers/security.js';
import { APP_RETURN, bankLink, configureBankLink, linkItem, plaidSandbox, sandboxSetup, setOwnOriginator, walkLinkPage } from '../helpers/bank-link.js';

let h: Harness;
let userId: string;
let user: Record<string, string>;
let creds: { clientId: string; secret: string };
const q = (url: string) => encodeURIComponent(url);

beforeAll(async () => {
  h = await createHarness({ listen: true });
  creds = await sandboxSetup(h);
  userId = await h.createUser();
});
// Tests move the clock past the 15-minute access-token lifetime: a fresh token for each.
beforeEach(async () => {
  user = h.bearerHeaders(await h.tokenFor(userId));
});
afterAll(async () => h.close());

async function publicToken(headers = user): Promise<string> {
  const res = await h.inject({ method: 'GET', url: `/bank-link/link-token?redirectUrl=${q(APP_RETURN)}`, headers });
  return walkLinkPage(h, res.json().linkUrl);
}

/** A tenant whose provider cannot be reached (its credentials are those of its sandbox account). */
async function deadProviderTenant(): Promise<{ t: TestTenant; c: { clientId: string; secret: string } }> {
  const t = await h.newTenant();
  const c = await sandboxSetup(h, t);
  await configureBankLink(h, t.tenantId, { baseUrl: 'http://127.0.0.1:9', environment: 'sandbox', clientId: c.clientId, secret: c.secret });
  return { t, c };
}

describe('GET /bank-link/link-token and /bank-link/tenant/link-token', () => {
  it('400 for a redirect outside the allow-list (lookalike hosts, paths, schemes)', async () => {
    for (const bad of ['https://evil.example/bank', 'https://app.example/bankrupt', 'http://app.example/bank', 'https://app.example.evil.example/bank', 'javascript:alert(1)', 'https://app.example/bank#frag']) {
      expectError(await h.inject({ method: 'GET', url: `/bank-link/link-token?redirectUrl=${q(bad)}`, headers: user }), 400, 'REDIRECT_URL_NOT_ALLOWED');
      expectError(await h.inject({ method: 'GET', url: `/bank-link/tenant/link-token?redirectUrl=${q(bad)}`, headers: h.keyHeaders() }), 400, 'REDIRECT_URL_NOT_ALLOWED');
    }
  });
  it('400 with no allow-list and no app URL', async () => {
    const t = await h.newTenant();
    expectError(await h.inject({ method: 'GET', url: `/bank-link/tenant/link-token?redirectUrl=${q(APP_RETURN)}`, headers: h.keyHeaders(t) }), 400, 'REDIRECT_URL_NOT_ALLOWED');
  });
  it('400 without redirectUrl or with unknown query fields', async () => {
    expectError(await h.inject({ method: 'GET', url: '/bank-link/link-token', headers: user }), 400, 'VALIDATION_FAILED');
    expectError(await h.inject({ method: 'GET', url: '/bank-link/tenant/link-token', headers: h.keyHeaders() }), 400, 'VALIDATION_FAILED');
    expectError(await h.inject({ method: 'GET', url: `/bank-link/link-token?redirectUrl=${q(APP_RETURN)}&x=1`, headers: user }), 400, 'VALIDATION_FAILED');
  });
  it('503 when the provider cannot be reached', async () => {
    const { t } = await deadProviderTenant();
    expectError(await h.inject({ method: 'GET', url: `/bank-link/tenant/link-token?redirectUrl=${q(APP_RETURN)}`, headers: h.keyHeaders(t) }), 503, 'BANK_LINK_PROVIDER_UNAVAILABLE');
    const u = h.bearerHeaders(await h.tokenFor(await h.createUser(t), t), t);
    expectError(await h.inject({ method: 'GET', url: `/bank-link/link-token?redirectUrl=${q(APP_RETURN)}`, headers: u }), 503, 'BANK_LINK_PROVIDER_UNAVAILABLE');
  });
});

describe('POST /bank-link/public-token', () => {
  it('a public token used twice is refused, and nothing more is stored', async () => {
    const token = await publicToken();
    expect((await h.inject({ method: 'POST', url: '/bank-link/public-token', headers: user, payload: { publicToken: token } })).statusCode).toBe(201);
    const before = (await h.inject({ method: 'GET', url: '/bank-link/items', headers: user })).json().total;
    expectError(await h.inject({ method: 'POST', url: '/bank-link/public-token', headers: user, payload: { publicToken: token } }), 400, 'BANK_LINK_PUBLIC_TOKEN_INVALID');
    expect((await h.inject({ method: 'GET', url: '/bank-link/items', headers: user })).json().total).toBe(before);
  });
  it('an expired public token (30 minutes) is refused', async () => {
    const token = await publicToken();
    h.clock.advance(31 * 60 * 1000);
    user = h.bearerHeaders(await h.tokenFor(userId));
    expectError(await h.inject({ method: 'POST', url: '/bank-link/public-token', headers: user, payload: { publicToken: token } }), 400, 'BANK_LINK_PUBLIC_TOKEN_INVALID');
  });
  it("another tenant's public token is not valid here", async () => {
    const t = await h.newTenant();
    await sandboxSetup(h, t);
    const token = await publicToken(h.bearerHeaders(await h.tokenFor(await h.createUser(t), t), t));
    expectError(await h.inject({ method: 'POST', url: '/bank-link/public-token', headers: user, payload: { publicToken: token } }), 400, 'BANK_LINK_PUBLIC_TOKEN_INVALID');
  });
  it('400 for malformed input', async () => {
    for (const payload of [{}, { publicToken: '' }, { publicToken: null }, { publicToken: 'public-sandbox-x', extra: 1 }, { publicToken: 'x'.repeat(201) }]) {
      expectError(await h.inject({ method: 'POST', url: '/bank-link/public-token', headers: user, payload }), 400, 'VALIDATION_FAILED');
    }
    const junk = await h.inject({ method: 'POST', url: '/bank-link/public-token', headers: { ...user, 'content-type': 'application/json' }, payload: '{"publicToken":' });
    expect(junk.statusCode).toBe(400);
    expectError(await h.inject({ method: 'POST', url: '/bank-link/public-token', headers: user, payload: { publicToken: 'public-sandbox-00000000-0000-0000-0000-000000000000' } }), 400, 'BANK_LINK_PUBLIC_TOKEN_INVALID');
  });
  it('503 when the provider cannot be reached', async () => {
    const { t } = await deadProviderTenant();
    expectError(await h.inject({ method: 'POST', url: '/bank-link/public-token', headers: h.keyHeaders(t), payload: { publicToken: 'public-sandbox-x' } }), 503, 'BANK_LINK_PROVIDER_UNAVAILABLE');
  });
});

describe('DELETE /bank-link/items/{itemId}', () => {
  it("404 for another user's item, another tenant's item and an unknown id; nothing changed", async () => {
    const item = await linkItem(h, user);
    const otherUser = h.bearerHeaders(await h.tokenFor(await h.createUser()));
    expectError(await h.inject({ method: 'DELETE', url: `/bank-link/items/${item.itemId}`, headers: otherUser }), 404, 'BANK_LINK_ITEM_NOT_FOUND');
    expectError(await h.inject({ method: 'DELETE', url: `/bank-link/items/${item.itemId}`, headers: h.keyHeaders() }), 404, 'BANK_LINK_ITEM_NOT_FOUND');
    const t = await h.newTenant();
    expectError(await h.inject({ method: 'DELETE', url: `/bank-link/items/${item.itemId}`, headers: h.keyHeaders(t) }), 404, 'BANK_LINK_ITEM_NOT_FOUND');
    expectError(await h.inject({ method: 'DELETE', url: `/bank-link/items/${randomUUID()}`, headers: user }), 404, 'BANK_LINK_ITEM_NOT_FOUND');
    const list = await h.inject({ method: 'GET', url: '/bank-link/items', headers: user });
    expect(list.json().data.find((i: { itemId: string }) => i.itemId === item.itemId)).toMatchObject({ status: 'active' });
    // Still linked at the provider too: the owner can remove it.
    expect((await h.inject({ method: 'DELETE', url: `/bank-link/items/${item.itemId}`, headers: user })).statusCode).toBe(200);
    expectError(await h.inject({ method: 'DELETE', url: `/bank-link/items/${item.itemId}`, headers: user }), 404, 'BANK_LINK_ITEM_NOT_FOUND');
  });
  it('400 for a malformed id', async () => {
    expectError(await h.inject({ method: 'DELETE', url: "/bank-link/items/1'%20or%201=1", headers: user }), 400, 'VALIDATION_FAILED');
  });
  it('503 when the provider cannot be reached; the item stays', async () => {
    const t = await h.newTenant();
    const c = await sandboxSetup(h, t);
    const item = await linkItem(h, h.keyHeaders(t));
    await configureBankLink(h, t.tenantId, { baseUrl: 'http://127.0.0.1:9', clientId: c.clientId, secret: c.secret });
    expectError(await h.inject({ method: 'DELETE', url: `/bank-link/items/${item.itemId}`, headers: h.keyHeaders(t) }), 503, 'BANK_LINK_PROVIDER_UNAVAILABLE');
    expect((await h.inject({ method: 'GET', url: '/bank-link/items', headers: h.keyHeaders(t) })).json().total).toBe(1);
  });
});

describe('GET /bank-link/tenant/originator', () => {
  it('404 until the tenant has an originator; 503 when the provider cannot be reached', async () => {
    const t = await h.newTenant();
    expectError(await h.inject({ method: 'GET', url: '/bank-link/tenant/originator', headers: h.keyHeaders(t) }), 404, 'BANK_LINK_ORIGINATOR_NOT_FOUND');
    const { t: dead } = await deadProviderTenant();
    await setOwnOriginator(h, dead.tenantId, 'a'.repeat(24));
    expectError(await h.inject({ method: 'GET', url: '/bank-link/tenant/originator', headers: h.keyHeaders(dead) }), 503, 'BANK_LINK_PROVIDER_UNAVAILABLE');
  });
});

describe('sandbox originators', () => {
  let originatorId: string;
  beforeAll(async () => {
    const res = await h.inject({ method: 'POST', url: '/bank-link-sandbox/originators', headers: h.keyHeaders(), payload: { ...creds, companyName: 'Mine' } });
    originatorId = res.json().id;
  });

  it('400 with credentials that are not the tenant’s; nothing created', async () => {
    const other = await h.newTenant();
    const otherCreds = await sandboxSetup(h, other);
    for (const payload of [{ ...creds, secret: 'wrong' }, { ...creds, clientId: 'f'.repeat(24) }, { ...otherCreds, companyName: 'x' }]) {
      expectError(await h.inject({ method: 'POST', url: '/bank-link-sandbox/originators', headers: h.keyHeaders(), payload: { companyName: 'Nope', ...payload } }), 400, 'BANK_LINK_SANDBOX_CREDENTIALS_INVALID');
    }
    expectError(await h.inject({ method: 'POST', url: `/bank-link-sandbox/originators/${originatorId}/kyb`, headers: h.keyHeaders(), payload: { ...creds, secret: 'wrong', redirectUri: APP_RETURN } }), 400, 'BANK_LINK_SANDBOX_CREDENTIALS_INVALID');
    const list = await h.inject({ method: 'GET', url: '/bank-link-sandbox/originators?count=25&offset=0', headers: h.keyHeaders() });
    expect(list.json().data.map((o: { companyName: string }) => o.companyName)).toEqual(['Mine']);
  });
  it('400 for malformed input (count and offset required, count 1-25)', async () => {
    for (const query of ['', 'count=5', 'offset=0', 'count=0&offset=0', 'count=26&offset=0', 'count=5&offset=-1', 'count=x&offset=0', 'count=5&offset=0&extra=1']) {
      expectError(await h.inject({ method: 'GET', url: `/bank-link-sandbox/originators?${query}`, headers: h.keyHeaders() }), 400, 'VALIDATION_FAILED');
    }
    for (const payload of [{}, { ...creds }, { ...creds, companyName: '' }, { ...creds, companyName: 'x', more: 1 }]) {
      expectError(await h.inject({ method: 'POST', url: '/bank-link-sandbox/originators', headers: h.keyHeaders(), payload }), 400, 'VALIDATION_FAILED');
    }
    expectError(await h.inject({ method: 'POST', url: `/bank-link-sandbox/originators/${originatorId}/kyb`, headers: h.keyHeaders(), payload: { ...creds } }), 400, 'VALIDATION_FAILED');
    expectError(await h.inject({ method: 'GET', url: '/bank-link-sandbox/originators/bad%20id', headers: h.keyHeaders() }), 400, 'VALIDATION_FAILED');
  });
  it('400 for a KYB redirect outside the allow-list', async () => {
    expectError(await h.inject({ method: 'POST', url: `/bank-link-sandbox/originators/${originatorId}/kyb`, headers: h.keyHeaders(), payload: { ...creds, redirectUri: 'https://evil.example/' } }), 400, 'REDIRECT_URL_NOT_ALLOWED');
  });
  it("404 for another tenant's originator and an unknown one", async () => {
    const t = await h.newTenant();
    const c = await sandboxSetup(h, t);
    expectError(await h.inject({ method: 'GET', url: `/bank-link-sandbox/originators/${originatorId}`, headers: h.keyHeaders(t) }), 404, 'BANK_LINK_ORIGINATOR_NOT_FOUND');
    expectError(await h.inject({ method: 'POST', url: `/bank-link-sandbox/originators/${originatorId}/kyb`, headers: h.keyHeaders(t), payload: { ...c, redirectUri: APP_RETURN } }), 404, 'BANK_LINK_ORIGINATOR_NOT_FOUND');
    expectError(await h.inject({ method: 'GET', url: `/bank-link-sandbox/originators/${'0'.repeat(24)}`, headers: h.keyHeaders() }), 404, 'BANK_LINK_ORIGINATOR_NOT_FOUND');
  });
  it('404 while the tenant is not on the sandbox environment', async () => {
    const t = await h.newTenant();
    await configureBankLink(h, t.tenantId, { baseUrl: 'https://production.bank-link.example', environment: 'production', clientId: 'prod-client', secret: 'prod-secret' });
    const payload = { clientId: 'prod-client', secret: 'prod-secret' };
    expectError(await h.inject({ method: 'POST', url: '/bank-link-sandbox/originators', headers: h.keyHeaders(t), payload: { ...payload, companyName: 'x' } }), 404, 'BANK_LINK_SANDBOX_UNAVAILABLE');
    expectError(await h.inject({ method: 'GET', url: '/bank-link-sandbox/originators?count=1&offset=0', headers: h.keyHeaders(t) }), 404, 'BANK_LINK_SANDBOX_UNAVAILABLE');
    expectError(await h.inject({ method: 'GET', url: `/bank-link-sandbox/originators/${originatorId}`, headers: h.keyHeaders(t) }), 404, 'BANK_LINK_SANDBOX_UNAVAILABLE');
    expectError(await h.inject({ method: 'POST', url: `/bank-link-sandbox/originators/${originatorId}/kyb`, headers: h.keyHeaders(t), payload: { ...payload, redirectUri: APP_RETURN } }), 404, 'BANK_LINK_SANDBOX_UNAVAILABLE');
  });
  it('503 when the provider cannot be reached', async () => {
    const t = await h.newTenant();
    const c = await sandboxSetup(h, t);
    const created = await h.inject({ method: 'POST', url: '/bank-link-sandbox/originators', headers: h.keyHeaders(t), payload: { ...c, companyName: 'Soon offline' } });
    const id = created.json().id as string;
    await configureBankLink(h, t.tenantId, { baseUrl: 'http://127.0.0.1:9', clientId: c.clientId, secret: c.secret });
    expectError(await h.inject({ method: 'POST', url: '/bank-link-sandbox/originators', headers: h.keyHeaders(t), payload: { ...c, companyName: 'x' } }), 503, 'BANK_LINK_PROVIDER_UNAVAILABLE');
    expectError(await h.inject({ method: 'GET', url: '/bank-link-sandbox/originators?count=1&offset=0', headers: h.keyHeaders(t) }), 503, 'BANK_LINK_PROVIDER_UNAVAILABLE');
    expectError(await h.inject({ method: 'GET', url: `/bank-link-sandbox/originators/${id}`, headers: h.keyHeaders(t) }), 503, 'BANK_LINK_PROVIDER_UNAVAILABLE');
    expectError(await h.inject({ method: 'POST', url: `/bank-link-sandbox/originators/${id}/kyb`, headers: h.keyHeaders(t), payload: { ...c, redirectUri: APP_RETURN } }), 503, 'BANK_LINK_PROVIDER_UNAVAILABLE');
  });
});

describe('Link page', () => {
  it('refuses wrong sandbox credentials, and an unknown or finished session', async () => {
    const res = await h.inject({ method: 'GET', url: `/bank-link/link-token?redirectUrl=${q(APP_RETURN)}`, headers: user });
    const linkUrl = new URL(res.json().linkUrl as string);
    const page = `${linkUrl.pathname}${linkUrl.search}`;
    const token = linkUrl.searchParams.get('token')!;
    const form = { headers: { 'content-type': 'application/x-www-form-urlencoded' } };
    const bad = await h.inject({ method: 'POST', url: '/sandbox/bank-link/link/login', ...form, payload: `token=${token}&institution_id=ins_109508&username=user_good&password=wrong` });
    expect(bad.statusCode).toBe(401);
    expect(bad.body).toContain('credentials were not correct');
    const skip = await h.inject({ method: 'POST', url: '/sandbox/bank-link/link/accounts', ...form, payload: `token=${token}&account=checking` });
    expect(skip.statusCode).toBe(400);
    await walkLinkPage(h, res.json().linkUrl);
    expect((await h.inject({ method: 'GET', url: page })).statusCode).toBe(410);
    expect((await h.inject({ method: 'GET', url: '/sandbox/bank-link/link?token=link-sandbox-00000000-0000-0000-0000-000000000000' })).statusCode).toBe(404);
    expect((await h.inject({ method: 'GET', url: '/sandbox/bank-link/link' })).statusCode).toBe(404);
    expect((await h.inject({ method: 'POST', url: '/sandbox/bank-link/link/login', ...form, payload: 'token=%3Cscript%3E' })).statusCode).toBe(404);
  });
});

describe('POST /bank-link/webhooks/{tenantId}: signature checks', () => {
  let providerItemId: string;
  let itemId: string;
  const post = (signature: string | undefined, body: string, tenantId = h.tenant.tenantId) =>
    h.inject({ method: 'POST', url: `/bank-link/webhooks/${tenantId}`, headers: { 'content-type': 'application/json', ...(signature ? { 'plaid-verification': signature } : {}) }, payload: body });
  const body = () => JSON.stringify({ webhook_type: 'ITEM', webhook_code: 'ERROR', item_id: providerItemId, error: { error_code: 'ITEM_LOGIN_REQUIRED' } });
  const signer = () => plaidSandbox(h).signer;
  const kidOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[0]!, 'base64url').toString()).kid as string;

  beforeAll(async () => {
    itemId = (await linkItem(h, user)).itemId;
    const [row] = await h.database.db.select().from(bankLinkItems).where(eq(bankLinkItems.id, itemId));
    providerItemId = row!.providerItemId;
  });

  async function unchanged(): Promise<void> {
    const [row] = await h.database.db.select().from(bankLinkItems).where(eq(bankLinkItems.id, itemId));
    expect(row!.status).toBe('active');
    const events = (await outbox(h, undefined, 'bank_link.item_updated')).filter((e) => (e.payload as { itemId: string }).itemId === itemId);
    expect(events).toHaveLength(0);
  }

  it('401 without the header or with a malformed token', async () => {
    expectError(await post(undefined, body()), 401, 'WEBHOOK_SIGNATURE_INVALID');
    expectError(await post('not.a.jwt', body()), 401, 'WEBHOOK_SIGNATURE_INVALID');
    await unchanged();
  });
  it('401 for a bad signature (signed by another key under the provider key id)', async () => {
    const { SignJWT, generateKeyPair } = await import('jose');
    const genuine = await signer().sign(body());
    const { privateKey } = await generateKeyPair('ES256');
    const { createHash } = await import('node:crypto');
    const forged = await new SignJWT({ request_body_sha256: createHash('sha256').update(body()).digest('hex') })
      .setProtectedHeader({ alg: 'ES256', kid: kidOf(genuine), typ: 'JWT' })
      .setIssuedAt(Math.floor(h.clock.now().getTime() / 1000))
      .sign(privateKey);
    expectError(await post(forged, body()), 401, 'WEBHOOK_SIGNATURE_INVALID');
    // A tampered signature of a genuine token.
    const parts = genuine.split('.');
    const tampered = `${parts[0]}.${parts[1]}.${parts[2]!.slice(0, -4)}AAAA`;
    expectError(await post(tampered, body()), 401, 'WEBHOOK_SIGNATURE_INVALID');
    // An unknown key id, and another algorithm.
    const unknownKid = await new SignJWT({ request_body_sha256: 'x' }).setProtectedHeader({ alg: 'ES256', kid: 'unknown' }).setIssuedAt().sign(privateKey);
    expectError(await post(unknownKid, body()), 401, 'WEBHOOK_SIGNATURE_INVALID');
    const hs = await new SignJWT({ request_body_sha256: 'x' }).setProtectedHeader({ alg: 'HS256', kid: kidOf(genuine) }).setIssuedAt().sign(new Uint8Array(32));
    expectError(await post(hs, body()), 401, 'WEBHOOK_SIGNATURE_INVALID');
    await unchanged();
  });
  it('keys are fetched once per key id (cached), and an unknown key id is not asked about again for a minute', async () => {
    const lookups = vi.spyOn(signer(), 'publicKey');
    try {
      const { SignJWT, generateKeyPair } = await import('jose');
      const { privateKey } = await generateKeyPair('ES256');
      const kid = `unknown-${randomUUID()}`;
      const forged = await new SignJWT({ request_body_sha256: 'x' }).setProtectedHeader({ alg: 'ES256', kid }).setIssuedAt(Math.floor(h.clock.now().getTime() / 1000)).sign(privateKey);
      for (let i = 0; i < 3; i++) expectError(await post(forged, body()), 401, 'WEBHOOK_SIGNATURE_INVALID');
      expect(lookups.mock.calls.filter(([k]) => k === kid)).toHaveLength(1);
      h.clock.advance(61_000);
      user = h.bearerHeaders(await h.tokenFor(userId));
      expectError(await post(forged, body()), 401, 'WEBHOOK_SIGNATURE_INVALID');
      expect(lookups.mock.calls.filter(([k]) => k === kid)).toHaveLength(2);
      // The genuine key: already cached by earlier webhooks, not fetched again.
      const genuineKid = kidOf(await signer().sign('{}'));
      const before = lookups.mock.calls.filter(([k]) => k === genuineKid).length;
      const raw = JSON.stringify({ webhook_type: 'ITEM', webhook_code: 'NOTHING', item_id: providerItemId });
      expect((await post(await signer().sign(raw), raw)).statusCode).toBe(200);
      expect((await post(await signer().sign(raw), raw)).statusCode).toBe(200);
      expect(lookups.mock.calls.filter(([k]) => k === genuineKid).length).toBe(before);
    } finally {
      lookups.mockRestore();
    }
    await unchanged();
  });
  it('401 when the body hash does not match (a genuine signature of another body)', async () => {
    const signature = await signer().sign(JSON.stringify({ webhook_type: 'ITEM', webhook_code: 'LOGIN_REPAIRED', item_id: providerItemId }));
    expectError(await post(signature, body()), 401, 'WEBHOOK_SIGNATURE_INVALID');
    // One byte more than what was signed.
    expectError(await post(await signer().sign(body()), `${body()} `), 401, 'WEBHOOK_SIGNATURE_INVALID');
    await unchanged();
  });
  it('401 for a stale iat (over five minutes) or one from the future', async () => {
    const old = await signer().sign(body(), new Date(h.clock.now().getTime() - 5 * 60 * 1000 - 2000));
    expectError(await post(old, body()), 401, 'WEBHOOK_SIGNATURE_INVALID');
    const genuine = await signer().sign(body());
    h.clock.advance(6 * 60 * 1000);
    expectError(await post(genuine, body()), 401, 'WEBHOOK_SIGNATURE_INVALID');
    const future = await signer().sign(body(), new Date(h.clock.now().getTime() + 10 * 60 * 1000));
    expectError(await post(future, body()), 401, 'WEBHOOK_SIGNATURE_INVALID');
    await unchanged();
  });
  it("401 for an unknown or malformed tenant, and for another tenant's path", async () => {
    const signature = await signer().sign(body());
    expectError(await post(signature, body(), randomUUID()), 401, 'WEBHOOK_SIGNATURE_INVALID');
    expectError(await post(signature, body(), 'not-a-tenant'), 401, 'WEBHOOK_SIGNATURE_INVALID');
    const other = await h.newTenant();
    await sandboxSetup(h, other);
    const res = await post(signature, body(), other.tenantId);
    expect(res.statusCode).toBe(200); // genuine, but about an item the other tenant does not have
    await unchanged();
  });
  it('400 for a signed body that is not a webhook', async () => {
    const raw = JSON.stringify({ hello: 'world' });
    expectError(await post(await signer().sign(raw), raw), 400, 'VALIDATION_FAILED');
    await unchanged();
  });
});

describe('webhook handling when the provider is down', () => {
  it('an originator webhook answers 503 (the provider retries) when the status cannot be read back; nothing changes', async () => {
    const t = await h.newTenant();
    const c = await sandboxSetup(h, t);
    const created = await h.inject({ method: 'POST', url: '/bank-link-sandbox/originators', headers: h.keyHeaders(t), payload: { ...c, companyName: 'Down Co' } });
    const id = created.json().id as string;
    // The provider goes away; the webhook (its signature checked before) is applied.
    await configureBankLink(h, t.tenantId, { baseUrl: 'http://127.0.0.1:9', clientId: c.clientId, secret: c.secret });
    const body = { webhook_type: 'TRANSFER', webhook_code: 'ORIGINATOR_DILIGENCE_STATUS_UPDATED', originator_client_id: id };
    const request = { tenantId: t.tenantId, rawBody: JSON.stringify(body), headers: { 'plaid-verification': `down-${randomUUID()}` } };
    await expect(bankLink(h).webhooks.handle(request, body)).rejects.toMatchObject({ reason: 'unreachable', code: 'BANK_LINK_PROVIDER_UNAVAILABLE' });
    expect(await outbox(h, t, 'bank_link.originator_updated')).toHaveLength(0);
    // Not recorded as applied: the provider's retry of the same delivery is applied once it answers.
    await configureBankLink(h, t.tenantId, { baseUrl: plaidSandbox(h).baseUrl(), clientId: c.clientId, secret: c.secret });
    await expect(bankLink(h).webhooks.handle(request, body)).resolves.toBeUndefined();
  });
});
