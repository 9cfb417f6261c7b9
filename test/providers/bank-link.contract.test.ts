import { Configuration, CountryCode, PlaidApi, Products } from 'plaid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { plaidSandbox, sandboxBase, sandboxSetup } from '../helpers/bank-link.js';

/**
 * The built-in sandbox driven over real HTTP by the unmodified official client, for every
 * endpoint the adapter uses (and the sandbox shortcuts), with the provider's error shapes.
 */
let h: Harness;
let api: PlaidApi;
let creds: { client_id: string; secret: string };
const plaidError = (error: unknown) => (error as { response: { status: number; data: Record<string, unknown> } }).response;

beforeAll(async () => {
  h = await createHarness({ listen: true });
  const setup = await sandboxSetup(h);
  creds = { client_id: setup.clientId, secret: setup.secret };
  api = new PlaidApi(new Configuration({ basePath: sandboxBase(h) }));
});
afterAll(async () => h.close());

describe('bank-link sandbox speaks the provider protocol (official plaid client)', () => {
  it('link/token/create answers a link token, its expiry and a hosted Link URL', async () => {
    const { data } = await api.linkTokenCreate({
      ...creds,
      client_name: 'Contract',
      language: 'en',
      country_codes: [CountryCode.Us],
      user: { client_user_id: 'user-1' },
      products: [Products.Auth],
      hosted_link: { completion_redirect_uri: 'https://app.example/done' },
    });
    expect(data.link_token).toMatch(/^link-sandbox-/);
    expect(new Date(data.expiration).getTime()).toBeGreaterThan(h.clock.now().getTime());
    expect(data.hosted_link_url).toMatch(new RegExp(`^${h.baseUrl}/sandbox/bank-link/link\\?token=link-sandbox-`));
    expect(data.request_id).toEqual(expect.any(String));
  });

  it('sandbox/public_token/create, exchange (single use), accounts/get, item/get, item/remove', async () => {
    const { data: created } = await api.sandboxPublicTokenCreate({ ...creds, institution_id: 'ins_109508', initial_products: [Products.Auth] });
    expect(created.public_token).toMatch(/^public-sandbox-/);
    const { data: exchanged } = await api.itemPublicTokenExchange({ ...creds, public_token: created.public_token });
    expect(exchanged.access_token).toMatch(/^access-sandbox-/);
    const again = await api.itemPublicTokenExchange({ ...creds, public_token: created.public_token }).catch(plaidError);
    expect(again.status).toBe(400);
    expect(again.data).toMatchObject({ error_type: 'INVALID_INPUT', error_code: 'INVALID_PUBLIC_TOKEN', request_id: expect.any(String) });

    const { data: accounts } = await api.accountsGet({ ...creds, access_token: exchanged.access_token });
    expect(accounts.item.item_id).toBe(exchanged.item_id);
    expect(accounts.item.institution_name).toBe('First Platypus Bank');
    expect(accounts.accounts.map((a) => a.mask)).toEqual(['0000', '1111', '2222', '4444']);
    const { data: item } = await api.itemGet({ ...creds, access_token: exchanged.access_token });
    expect(item.item.item_id).toBe(exchanged.item_id);

    await api.itemRemove({ ...creds, access_token: exchanged.access_token });
    const gone = await api.accountsGet({ ...creds, access_token: exchanged.access_token }).catch(plaidError);
    expect(gone.data).toMatchObject({ error_code: 'INVALID_ACCESS_TOKEN' });
  });

  it('a public token expires after 30 minutes', async () => {
    const { data } = await api.sandboxPublicTokenCreate({ ...creds, institution_id: 'ins_109509', initial_products: [Products.Auth] });
    h.clock.advance(30 * 60 * 1000 + 1000);
    const late = await api.itemPublicTokenExchange({ ...creds, public_token: data.public_token }).catch(plaidError);
    expect(late.data).toMatchObject({ error_code: 'INVALID_PUBLIC_TOKEN' });
  });

  it('credentials: in the body or in the PLAID-CLIENT-ID / PLAID-SECRET headers; wrong ones are INVALID_API_KEYS', async () => {
    const headerApi = new PlaidApi(
      new Configuration({ basePath: api['basePath'] as string, baseOptions: { headers: { 'PLAID-CLIENT-ID': creds.client_id, 'PLAID-SECRET': creds.secret } } }),
    );
    const { data } = await headerApi.transferOriginatorList({ count: 1, offset: 0 });
    expect(data.originators).toEqual(expect.any(Array));
    const wrong = await api.transferOriginatorList({ client_id: creds.client_id, secret: 'nope', count: 1 }).catch(plaidError);
    expect(wrong.status).toBe(400);
    expect(wrong.data).toMatchObject({ error_type: 'INVALID_INPUT', error_code: 'INVALID_API_KEYS' });
    const missing = await api.transferOriginatorList({ count: 1 }).catch(plaidError);
    expect(missing.data).toMatchObject({ error_type: 'INVALID_REQUEST', error_code: 'MISSING_FIELDS' });
    // Another client's credentials see nothing of this client.
    const other = await h.newTenant();
    const otherCreds = await sandboxSetup(h, other);
    const foreign = await api.transferOriginatorList({ client_id: otherCreds.clientId, secret: otherCreds.secret, count: 25 });
    expect(foreign.data.originators).toEqual([]);
  });

  it('transfer/originator create, list (count, offset), get; questionnaire/create', async () => {
    const { data: a } = await api.transferOriginatorCreate({ ...creds, company_name: 'Acme Funding LLC' });
    const { data: b } = await api.transferOriginatorCreate({ ...creds, company_name: 'Beta Capital' });
    const { data: list } = await api.transferOriginatorList({ ...creds, count: 25, offset: 0 });
    expect(list.originators.map((o) => o.client_id)).toEqual(expect.arrayContaining([a.originator_client_id, b.originator_client_id]));
    const { data: page } = await api.transferOriginatorList({ ...creds, count: 1, offset: 1 });
    expect(page.originators).toHaveLength(1);
    const tooMany = await api.transferOriginatorList({ ...creds, count: 26 }).catch(plaidError);
    expect(tooMany.data).toMatchObject({ error_code: 'INVALID_FIELD' });
    const { data: got } = await api.transferOriginatorGet({ ...creds, originator_client_id: a.originator_client_id });
    expect(got.originator).toEqual({ client_id: a.originator_client_id, company_name: 'Acme Funding LLC', transfer_diligence_status: 'not_submitted' });
    const { data: q } = await api.transferQuestionnaireCreate({ ...creds, originator_client_id: a.originator_client_id, redirect_uri: 'https://app.example/kyb' });
    expect(q.onboarding_url).toMatch(new RegExp(`^${h.baseUrl}/sandbox/bank-link/onboarding\\?token=`));
    const unknown = await api.transferOriginatorGet({ ...creds, originator_client_id: 'f'.repeat(24) }).catch(plaidError);
    expect(unknown.data).toMatchObject({ error_code: 'ORIGINATOR_NOT_FOUND' });
  });

  it('concurrent originator creates all succeed and list in creation order', async () => {
    const t = await h.newTenant();
    const c = await sandboxSetup(h, t);
    const own = { client_id: c.clientId, secret: c.secret };
    const created = await Promise.all(Array.from({ length: 6 }, (_, i) => api.transferOriginatorCreate({ ...own, company_name: `Parallel ${i}` })));
    const { data } = await api.transferOriginatorList({ ...own, count: 25, offset: 0 });
    expect(data.originators.map((o) => o.client_id).sort()).toEqual(created.map((r) => r.data.originator_client_id).sort());
  });

  it('webhook_verification_key/get answers the ES256 public key of a signature, unknown ids refused', async () => {
    const jwt = await plaidSandbox(h).signer.sign('{}');
    const kid = JSON.parse(Buffer.from(jwt.split('.')[0]!, 'base64url').toString()).kid as string;
    const { data } = await api.webhookVerificationKeyGet({ ...creds, key_id: kid });
    expect(data.key).toMatchObject({ alg: 'ES256', kty: 'EC', crv: 'P-256', kid, use: 'sig', expired_at: null });
    const bad = await api.webhookVerificationKeyGet({ ...creds, key_id: 'nope' }).catch(plaidError);
    expect(bad.data).toMatchObject({ error_code: 'INVALID_WEBHOOK_VERIFICATION_KEY_ID' });
  });

  it('sandbox/item/reset_login puts the item in ITEM_LOGIN_REQUIRED', async () => {
    const { data: created } = await api.sandboxPublicTokenCreate({ ...creds, institution_id: 'ins_109510', initial_products: [Products.Auth] });
    const { data: exchanged } = await api.itemPublicTokenExchange({ ...creds, public_token: created.public_token });
    const { data } = await api.sandboxItemResetLogin({ ...creds, access_token: exchanged.access_token });
    expect(data.reset_login).toBe(true);
    const { data: item } = await api.itemGet({ ...creds, access_token: exchanged.access_token });
    expect(item.item.error).toMatchObject({ error_code: 'ITEM_LOGIN_REQUIRED', error_type: 'ITEM_ERROR' });
  });

  it('malformed bodies and unknown fields answer the provider error shape', async () => {
    const raw = await fetch(`${api['basePath'] as string}/accounts/get`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{not json' });
    expect(raw.status).toBe(400);
    expect(await raw.json()).toMatchObject({ error_type: 'INVALID_REQUEST', error_code: 'INVALID_BODY' });
    const extra = await api.accountsGet({ ...creds, access_token: 'access-sandbox-x', bogus: 1 } as never).catch(plaidError);
    expect(extra.data).toMatchObject({ error_code: 'UNKNOWN_FIELDS' });
  });
});
