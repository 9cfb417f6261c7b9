import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { securityCases } from '../helpers/security.js';
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

describe('GET /bank-link/link-token', () => securityCases(() => h, { method: 'GET', url: () => `/bank-link/link-token?redirectUrl=${redirect}`, accepts: both }));
describe('POST /bank-link/public-token', () =>
  securityCases(() => h, { method: 'POST', url: () => '/bank-link/public-token', payload: () => ({ publicToken: 'public-sandbox-x' }), accepts: both }));
describe('GET /bank-link/items', () => securityCases(() => h, { method: 'GET', url: () => '/bank-link/items', accepts: both }));
describe('DELETE /bank-link/items/{itemId}', () => securityCases(() => h, { method: 'DELETE', url: () => `/bank-link/items/${itemId}`, accepts: both }));
describe('GET /bank-link/tenant/originator', () => securityCases(() => h, { method: 'GET', url: () => '/bank-link/tenant/originator', accepts: keyOnly }));
describe('GET /bank-link/tenant/link-token', () =>
  securityCases(() => h, { method: 'GET', url: () => `/bank-link/tenant/link-token?redirectUrl=${redirect}`, accepts: keyOnly }));
describe('POST /bank-link-sandbox/originators', () =>
  securityCases(() => h, { method: 'POST', url: () => '/bank-link-sandbox/originators', payload: () => ({ ...creds, companyName: 'x' }), accepts: keyOnly }));
describe('GET /bank-link-sandbox/originators', () =>
  securityCases(() => h, { method: 'GET', url: () => '/bank-link-sandbox/originators?count=5&offset=0', accepts: keyOnly }));
describe('POST /bank-link-sandbox/originators/{id}/kyb', () =>
  securityCases(() => h, { method: 'POST', url: () => `/bank-link-sandbox/originators/${originatorId}/kyb`, payload: () => ({ ...creds, redirectUri: APP_RETURN }), accepts: keyOnly }));
describe('GET /bank-link-sandbox/originators/{id}', () =>
  securityCases(() => h, { method: 'GET', url: () => `/bank-link-sandbox/originators/${originatorId}`, accepts: keyOnly }));

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
