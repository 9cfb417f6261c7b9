import { and, eq } from 'drizzle-orm';
import { Configuration, PlaidApi } from 'plaid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessTokenContext } from '../../src/modules/bank-link/service.js';
import { bankLinkItems } from '../../src/modules/bank-link/table.js';
import { auditEvents } from '../../src/modules/audit/table.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { outbox } from '../helpers/outbox.js';
import { APP_RETURN, linkItem, pathOf, plaidSandbox, sandboxBase, sandboxSetup, walkLinkPage } from '../helpers/bank-link.js';

let h: Harness;
let userId: string;
let user: Record<string, string>;
let creds: { clientId: string; secret: string };

beforeAll(async () => {
  h = await createHarness({ listen: true });
  creds = await sandboxSetup(h);
  userId = await h.createUser();
  user = h.bearerHeaders(await h.tokenFor(userId));
});
afterAll(async () => h.close());

async function accessTokenOf(itemId: string): Promise<string> {
  const [row] = await h.database.db.select().from(bankLinkItems).where(and(eq(bankLinkItems.tenantId, h.tenant.tenantId), eq(bankLinkItems.id, itemId)));
  return h.container.secrets.decrypt(row!.accessTokenSealed, accessTokenContext(h.tenant.tenantId, itemId));
}

describe('user journey', () => {
  it('GET /bank-link/link-token answers a link token and the hosted Link page', async () => {
    const { data: body, response } = await h.api(user).GET('/bank-link/link-token', { params: { query: { redirectUrl: `${APP_RETURN}/done?x=1` } } });
    expect(response.status).toBe(200);
    expect(body).toEqual({ linkToken: expect.stringMatching(/^link-sandbox-/), expiration: expect.any(String), linkUrl: expect.stringContaining('/sandbox/bank-link/link?token=link-sandbox-') });
    // The hosted Link page is HTML, outside the API document.
    const page = await h.inject({ method: 'GET', url: pathOf(body!.linkUrl!) });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('First Platypus Bank');
    expect(page.body).toContain('user_good');
  });

  it('Link page -> POST /bank-link/public-token stores the item with the chosen accounts (masks only, no access token)', async () => {
    const res = await h.api(user).GET('/bank-link/link-token', { params: { query: { redirectUrl: `${APP_RETURN}/done` } } });
    const publicToken = await walkLinkPage(h, res.data!.linkUrl!, ['checking', 'cd']);
    const exchanged = await h.api(user).POST('/bank-link/public-token', { body: { publicToken } });
    expect(exchanged.response.status).toBe(201);
    const item = exchanged.data!;
    expect(item).toMatchObject({ itemId: expect.any(String), institutionId: 'ins_109508', institutionName: 'First Platypus Bank', status: 'active', errorCode: null });
    expect(item.accounts.map((a) => [a.name, a.mask])).toEqual([['Plaid Checking', '0000'], ['Plaid CD', '2222']]);
    expect(JSON.stringify(exchanged.data)).not.toContain('access-sandbox');
    const events = await outbox(h, undefined, 'bank_link.item_linked');
    expect(events.at(-1)?.payload).toMatchObject({ itemId: item.itemId, userId, institutionId: 'ins_109508', accounts: 2 });
    const audit = await h.database.db.select().from(auditEvents).where(and(eq(auditEvents.tenantId, h.tenant.tenantId), eq(auditEvents.type, 'bank_link.item_linked')));
    expect(audit.at(-1)).toMatchObject({ actorType: 'user', actorId: userId, subjectUserId: userId });
    // Sealed at rest.
    const [row] = await h.database.db.select().from(bankLinkItems).where(eq(bankLinkItems.id, item.itemId));
    expect(row!.accessTokenSealed).not.toContain('access-sandbox');
    expect(await accessTokenOf(item.itemId)).toMatch(/^access-sandbox-/);
  });

  it('GET /bank-link/items lists only the caller’s items', async () => {
    const other = await h.createUser();
    const otherHeaders = h.bearerHeaders(await h.tokenFor(other));
    const mine = await linkItem(h, user);
    await linkItem(h, otherHeaders);
    const { data: body, response } = await h.api(user).GET('/bank-link/items');
    expect(response.status).toBe(200);
    expect(body!.total).toBe(body!.data.length);
    expect(body!.data.map((i) => i.itemId)).toContain(mine.itemId);
    const theirs = await h.api(otherHeaders).GET('/bank-link/items');
    expect(theirs.data!.total).toBe(1);
    expect(theirs.data!.data[0]!.itemId).not.toBe(mine.itemId);
    expect(JSON.stringify(body)).not.toContain('access');
  });

  it('DELETE /bank-link/items/{itemId} removes the item at the provider, then here', async () => {
    const item = await linkItem(h, user);
    const accessToken = await accessTokenOf(item.itemId);
    const res = await h.api(user).DELETE('/bank-link/items/{itemId}', { params: { path: { itemId: item.itemId } } });
    expect(res.response.status).toBe(200);
    expect(res.data).toEqual({ itemId: item.itemId, removed: true });
    const list = await h.api(user).GET('/bank-link/items');
    expect(list.data!.data.map((i) => i.itemId)).not.toContain(item.itemId);
    const api = new PlaidApi(new Configuration({ basePath: sandboxBase(h) }));
    const gone = await api.accountsGet({ client_id: creds.clientId, secret: creds.secret, access_token: accessToken }).catch((e: { response: { data: unknown } }) => e.response);
    expect(gone.data).toMatchObject({ error_code: 'INVALID_ACCESS_TOKEN' });
    expect((await outbox(h, undefined, 'bank_link.item_removed')).at(-1)?.payload).toMatchObject({ itemId: item.itemId, userId });
  });

  it('the access token never reaches the logs', async () => {
    await linkItem(h, user);
    expect(h.logs.text()).not.toContain('access-sandbox');
    expect(h.logs.text()).not.toContain(creds.secret);
    // Link tokens travel in queries and forms, which the logs redact.
    expect(h.logs.text()).not.toContain('link-sandbox-');
  });
});

describe('tenant routes', () => {
  it('GET /bank-link/tenant/link-token and the tenant’s own funding item (API key)', async () => {
    const api = h.api(h.keyHeaders());
    const res = await api.GET('/bank-link/tenant/link-token', { params: { query: { redirectUrl: APP_RETURN } } });
    expect(res.response.status).toBe(200);
    const publicToken = await walkLinkPage(h, res.data!.linkUrl!, ['savings']);
    const exchanged = await api.POST('/bank-link/public-token', { body: { publicToken } });
    expect(exchanged.response.status).toBe(201);
    const list = await api.GET('/bank-link/items');
    expect(list.data!.data.map((i) => i.itemId)).toEqual([exchanged.data!.itemId]);
    expect(list.data!.data[0]!.accounts).toEqual([expect.objectContaining({ name: 'Plaid Saving', mask: '1111' })]);
    const userList = await h.api(user).GET('/bank-link/items');
    expect(userList.data!.data.map((i) => i.itemId)).not.toContain(exchanged.data!.itemId);
  });

  it('the tenant’s app URL admits return URLs when the bank-link allow-list is empty', async () => {
    const t = await h.newTenant();
    await h.container.tenants.setAppUrl(t.tenantId, 'https://tenant-app.example/app');
    const res = await h.api(h.keyHeaders(t)).GET('/bank-link/tenant/link-token', { params: { query: { redirectUrl: 'https://tenant-app.example/app/bank' } } });
    expect(res.response.status).toBe(200);
  });
});

describe('sandbox originators and the tenant originator', () => {
  it('create, list, get, KYB questionnaire, diligence through signed webhooks, tenant originator', async () => {
    const t = await h.newTenant();
    const c = await sandboxSetup(h, t);
    const api = h.api(h.keyHeaders(t));
    const before = await api.GET('/bank-link/tenant/originator');
    expect(before.response.status).toBe(404);

    const created = await api.POST('/bank-link-sandbox/originators', { body: { clientId: c.clientId, secret: c.secret, companyName: 'Acme Funding LLC' } });
    expect(created.response.status).toBe(201);
    const id = created.data!.id;
    expect(created.data).toEqual({ id, companyName: 'Acme Funding LLC', diligenceStatus: 'not_submitted' });
    await api.POST('/bank-link-sandbox/originators', { body: { clientId: c.clientId, secret: c.secret, companyName: 'Second Co' } });

    const list = await api.GET('/bank-link-sandbox/originators', { params: { query: { count: 1, offset: 0 } } });
    expect(list.response.status).toBe(200);
    expect(list.data).toEqual({ count: 1, offset: 0, data: [{ id, companyName: 'Acme Funding LLC', diligenceStatus: 'not_submitted' }] });
    const second = await api.GET('/bank-link-sandbox/originators', { params: { query: { count: 25, offset: 1 } } });
    expect(second.data!.data.map((o) => o.companyName)).toEqual(['Second Co']);

    const got = await api.GET('/bank-link-sandbox/originators/{id}', { params: { path: { id } } });
    expect(got.response.status).toBe(200);
    expect(got.data).toEqual({ id, companyName: 'Acme Funding LLC', diligenceStatus: 'not_submitted' });

    const kyb = await api.POST('/bank-link-sandbox/originators/{id}/kyb', { params: { path: { id } }, body: { clientId: c.clientId, secret: c.secret, redirectUri: `${APP_RETURN}/kyb` } });
    expect(kyb.response.status).toBe(201);
    expect(kyb.data).toEqual({ originatorId: id, onboardingUrl: expect.stringContaining('/sandbox/bank-link/onboarding?token=') });

    // The questionnaire page: submit the answers, then the sandbox reviewer approves (HTML forms, outside the API document: inject).
    const url = pathOf(kyb.data!.onboardingUrl);
    const token = encodeURIComponent(new URL(kyb.data!.onboardingUrl).searchParams.get('token')!);
    const form = (body: string) => ({ payload: `token=${token}&${body}`, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect((await h.inject({ method: 'GET', url })).body).toContain('not_submitted');
    const submitted = await h.inject({ method: 'POST', url: '/sandbox/bank-link/onboarding', ...form('legal_name=Acme+Funding+LLC&ein=12-3456789&website=https%3A%2F%2Facme.example&address=1+Main+St') });
    expect(submitted.statusCode).toBe(200);
    expect(submitted.body).toContain('submitted');
    await h.container.platform.background.drain();
    const afterSubmit = await api.GET('/bank-link/tenant/originator');
    expect(afterSubmit.data).toEqual({ id, companyName: 'Acme Funding LLC', diligenceStatus: 'submitted' });
    expect((await outbox(h, t, 'bank_link.originator_updated')).map((e) => e.payload)).toEqual([{ originatorId: id, diligenceStatus: 'submitted' }]);

    const review = await h.inject({ method: 'POST', url: '/sandbox/bank-link/onboarding/review', ...form('decision=approve') });
    expect(review.statusCode).toBe(303);
    expect(review.headers.location).toBe(`${APP_RETURN}/kyb`);
    await h.container.platform.background.drain();
    expect((await outbox(h, t, 'bank_link.originator_updated')).map((e) => (e.payload as { diligenceStatus: string }).diligenceStatus)).toEqual(['submitted', 'approved']);
    const approved = await api.GET('/bank-link/tenant/originator');
    expect(approved.response.status).toBe(200);
    expect(approved.data!.diligenceStatus).toBe('approved');
  });
});

describe('provider webhooks', () => {
  it('an item that needs a new login is marked and announced once, however often the webhook comes', async () => {
    const item = await linkItem(h, user);
    const api = new PlaidApi(new Configuration({ basePath: sandboxBase(h) }));
    await api.sandboxItemResetLogin({ client_id: creds.clientId, secret: creds.secret, access_token: await accessTokenOf(item.itemId) });
    await h.container.platform.background.drain();
    const list = await h.api(user).GET('/bank-link/items');
    const updated = list.data!.data.find((i) => i.itemId === item.itemId);
    expect(updated).toMatchObject({ status: 'login_required', errorCode: 'ITEM_LOGIN_REQUIRED' });
    const events = (await outbox(h, undefined, 'bank_link.item_updated')).filter((e) => (e.payload as { itemId: string }).itemId === item.itemId);
    expect(events.map((e) => e.payload)).toEqual([{ itemId: item.itemId, userId, status: 'login_required', errorCode: 'ITEM_LOGIN_REQUIRED', webhookCode: 'ERROR' }]);

    // A replay (same body, valid fresh signature) changes nothing and announces nothing.
    const [row] = await h.database.db.select().from(bankLinkItems).where(eq(bankLinkItems.id, item.itemId));
    const body = JSON.stringify({ webhook_type: 'ITEM', webhook_code: 'ERROR', item_id: row!.providerItemId, error: { error_code: 'ITEM_LOGIN_REQUIRED' }, environment: 'sandbox' });
    const signature = await plaidSandbox(h).signer.sign(body);
    // Webhooks stay on inject: the signature covers these exact bytes.
    for (let i = 0; i < 2; i++) {
      const res = await h.inject({ method: 'POST', url: `/bank-link/webhooks/${h.tenant.tenantId}`, headers: { 'content-type': 'application/json', 'plaid-verification': signature }, payload: body });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ received: true });
    }
    expect((await outbox(h, undefined, 'bank_link.item_updated')).filter((e) => (e.payload as { itemId: string }).itemId === item.itemId)).toHaveLength(1);

    // LOGIN_REPAIRED brings it back.
    const repaired = JSON.stringify({ webhook_type: 'ITEM', webhook_code: 'LOGIN_REPAIRED', item_id: row!.providerItemId, environment: 'sandbox' });
    const ok = await h.inject({ method: 'POST', url: `/bank-link/webhooks/${h.tenant.tenantId}`, headers: { 'content-type': 'application/json', 'plaid-verification': await plaidSandbox(h).signer.sign(repaired) }, payload: repaired });
    expect(ok.statusCode).toBe(200);
    const after = await h.api(user).GET('/bank-link/items');
    expect(after.data!.data.find((i) => i.itemId === item.itemId)).toMatchObject({ status: 'active', errorCode: null });
  });

  it('a webhook about an unknown item is acknowledged and ignored', async () => {
    const body = JSON.stringify({ webhook_type: 'ITEM', webhook_code: 'ERROR', item_id: 'unknown-item', error: { error_code: 'ITEM_LOGIN_REQUIRED' } });
    // Signed bytes: inject.
    const res = await h.inject({ method: 'POST', url: `/bank-link/webhooks/${h.tenant.tenantId}`, headers: { 'content-type': 'application/json', 'plaid-verification': await plaidSandbox(h).signer.sign(body) }, payload: body });
    expect(res.statusCode).toBe(200);
  });
});
