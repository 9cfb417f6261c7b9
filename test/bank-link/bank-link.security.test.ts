import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness, type TestTenant } from '../helpers/harness.js';
import { routeCases } from '../helpers/security.js';
import { APP_RETURN, linkItem, sandboxSetup } from '../helpers/bank-link.js';

let h: Harness;
let itemId: string;
let userId: string;
let originatorId: string;
let creds: { clientId: string; secret: string };
const redirect = encodeURIComponent(APP_RETURN);

beforeAll(async () => {
  h = await createHarness({ listen: true });
  creds = await sandboxSetup(h);
  userId = await h.createUser();
  itemId = (await linkItem(h, h.bearerHeaders(await h.tokenFor(userId)))).itemId;
  const created = await h.inject({ method: 'POST', url: '/bank-link-sandbox/originators', headers: h.keyHeaders(), payload: { ...creds, companyName: 'Security Co' } });
  originatorId = created.json().id;
});
afterAll(async () => h.close());

const both = { apiKey: true, bearer: 'user' } as const;
const keyOnly = { apiKey: true } as const;

/** Another tenant on the sandbox, with its credentials and the test return URL allowed. */
async function otherSandboxTenant(): Promise<{ tenant: TestTenant; creds: { clientId: string; secret: string } }> {
  const tenant = await h.newTenant();
  return { tenant, creds: await sandboxSetup(h, tenant) };
}

/**
 * Another tenant's own funding item (linked with its API key, so no user owns it: only the
 * tenant scope keeps the harness tenant's API key away from it); afterwards it must still be listed.
 */
let foreignItem: { tenant: TestTenant; itemId: string } | undefined;
async function otherTenantsItem(): Promise<string> {
  const { tenant } = await otherSandboxTenant();
  foreignItem = { tenant, itemId: (await linkItem(h, h.keyHeaders(tenant))).itemId };
  return foreignItem.itemId;
}
async function foreignItemUnchanged(): Promise<void> {
  const list = await h.inject({ method: 'GET', url: '/bank-link/items', headers: h.keyHeaders(foreignItem!.tenant) });
  expect(list.json().data).toEqual([expect.objectContaining({ itemId: foreignItem!.itemId, status: 'active' })]);
}

/** An originator of another tenant; afterwards it must read back as created. */
let foreignOriginator: { tenant: TestTenant; id: string } | undefined;
async function otherTenantsOriginator(): Promise<string> {
  const { tenant, creds: c } = await otherSandboxTenant();
  const created = await h.inject({ method: 'POST', url: '/bank-link-sandbox/originators', headers: h.keyHeaders(tenant), payload: { ...c, companyName: 'Foreign Co' } });
  expect(created.statusCode).toBe(201);
  foreignOriginator = { tenant, id: created.json().id };
  return foreignOriginator.id;
}
async function foreignOriginatorUnchanged(): Promise<void> {
  const { tenant, id } = foreignOriginator!;
  const res = await h.inject({ method: 'GET', url: `/bank-link-sandbox/originators/${id}`, headers: h.keyHeaders(tenant) });
  expect(res.json()).toEqual({ id, companyName: 'Foreign Co', diligenceStatus: 'not_submitted' });
}

routeCases(() => h, 'GET /bank-link/link-token', { url: () => `/bank-link/link-token?redirectUrl=${redirect}`, accepts: both });
routeCases(() => h, 'POST /bank-link/public-token', { url: () => '/bank-link/public-token', payload: () => ({ publicToken: 'public-sandbox-x' }), accepts: both });
routeCases(() => h, 'GET /bank-link/items', { url: () => '/bank-link/items', accepts: both });
routeCases(() => h, 'DELETE /bank-link/items/{itemId}', {
  url: () => `/bank-link/items/${itemId}`,
  accepts: both,
  foreign: async () => `/bank-link/items/${await otherTenantsItem()}`,
  unchanged: foreignItemUnchanged,
});
routeCases(() => h, 'GET /bank-link/tenant/originator', { url: () => '/bank-link/tenant/originator', accepts: keyOnly });
routeCases(() => h, 'GET /bank-link/tenant/link-token', { url: () => `/bank-link/tenant/link-token?redirectUrl=${redirect}`, accepts: keyOnly });
routeCases(() => h, 'POST /bank-link-sandbox/originators', { url: () => '/bank-link-sandbox/originators', payload: () => ({ ...creds, companyName: 'x' }), accepts: keyOnly });
routeCases(() => h, 'GET /bank-link-sandbox/originators', { url: () => '/bank-link-sandbox/originators?count=5&offset=0', accepts: keyOnly });
routeCases(() => h, 'POST /bank-link-sandbox/originators/{id}/kyb', {
  url: () => `/bank-link-sandbox/originators/${originatorId}/kyb`,
  payload: () => ({ ...creds, redirectUri: APP_RETURN }),
  accepts: keyOnly,
  foreign: async () => `/bank-link-sandbox/originators/${await otherTenantsOriginator()}/kyb`,
  unchanged: foreignOriginatorUnchanged,
});
routeCases(() => h, 'GET /bank-link-sandbox/originators/{id}', {
  url: () => `/bank-link-sandbox/originators/${originatorId}`,
  accepts: keyOnly,
  foreign: async () => `/bank-link-sandbox/originators/${await otherTenantsOriginator()}`,
});

describe('nothing leaks', () => {
  it('the item survived every refused DELETE, and no answer or log line carries an access token or the secret', async () => {
    const list = await h.inject({ method: 'GET', url: '/bank-link/items', headers: h.bearerHeaders(await h.tokenFor(userId)) });
    expect(list.json().data.map((i: { itemId: string }) => i.itemId)).toEqual([itemId]);
    expect(list.body).not.toContain('access-sandbox');
    expect(h.logs.text()).not.toContain('access-sandbox');
    expect(h.logs.text()).not.toContain(creds.secret);
  });
  it('the sandbox pages and API carry no-store and a strict CSP', async () => {
    const res = await h.inject({ method: 'GET', url: '/sandbox/bank-link/link?token=link-sandbox-00000000-0000-0000-0000-000000000000' });
    expect(res.headers['cache-control']).toBe('no-store');
    expect(String(res.headers['content-security-policy'])).toContain("default-src 'none'");
  });
});

describe('OpenAPI', () => {
  it('documents every bank-link route with its security and errors, and stays valid', async () => {
    const { compileErrors, validate } = await import('@readme/openapi-parser');
    const doc = (await h.inject({ method: 'GET', url: '/openapi.json' })).json();
    const result = await validate(structuredClone(doc));
    expect(result.valid, result.valid ? '' : compileErrors(result)).toBe(true);
    const paths = Object.keys(doc.paths).filter((p) => p.startsWith('/bank-link'));
    expect(paths.sort()).toEqual([
      '/bank-link-sandbox/originators',
      '/bank-link-sandbox/originators/{id}',
      '/bank-link-sandbox/originators/{id}/kyb',
      '/bank-link/items',
      '/bank-link/items/{itemId}',
      '/bank-link/link-token',
      '/bank-link/public-token',
      '/bank-link/tenant/link-token',
      '/bank-link/tenant/originator',
      '/bank-link/webhooks/{tenantId}',
    ]);
    for (const path of paths) {
      for (const op of Object.values(doc.paths[path]) as Array<{ security?: unknown[]; responses: Record<string, unknown> }>) {
        expect(op.security?.length).toBeGreaterThan(0);
        expect(op.responses).toHaveProperty('400');
        expect(op.responses).toHaveProperty('401');
      }
    }
    expect(doc.paths['/bank-link/tenant/originator'].get.security).toEqual([{ tenant: [], apiKey: [] }]);
    expect(Object.keys(doc.paths).some((p) => p.startsWith('/sandbox/bank-link'))).toBe(false);
  });
});
