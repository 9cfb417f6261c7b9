import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness, type TestTenant } from '../helpers/harness.js';
import { routeCases } from '../helpers/security.js';
import { createTenantDocument, makePdf, upload } from './fixtures.js';

let h: Harness;
let userId: string;
let userHeaders: Record<string, string>;
let userDocId: string;
let tenantDocId: string;
let signedId: string;
const account = privateKeyToAccount(generatePrivateKey());

beforeAll(async () => {
  h = await createHarness();
  userId = await h.createUser();
  userHeaders = h.bearerHeaders(await h.tokenFor(userId));
  userDocId = (await upload(h, userHeaders)).json().id;
  tenantDocId = (await createTenantDocument(h)).id;
  const message = (await h.inject({ method: 'GET', url: `/tenant-documents/${tenantDocId}/sign?address=${account.address}&chainType=evm`, headers: userHeaders })).json();
  const signed = await h.inject({ method: 'POST', url: `/tenant-documents/${tenantDocId}/sign`, headers: userHeaders, payload: { address: account.address, nonce: message.nonce, signature: await account.signTypedData(message.typedData) } });
  signedId = signed.json().id;
});
afterAll(async () => h.close());

/** Another tenant with a user, a user document, a tenant document and a signed document. */
let foreign: { tenant: TestTenant; userDocId: string; tenantDocId: string; signedId: string; title: string } | undefined;
async function foreignObjects() {
  if (foreign) return foreign;
  const tenant = await h.newTenant();
  const owner = await h.createUser(tenant);
  const headers = h.bearerHeaders(await h.tokenFor(owner, tenant), tenant);
  const doc = (await upload(h, headers)).json();
  const tdoc = await createTenantDocument(h, tenant, makePdf({ text: 'Foreign' }), 'Foreign');
  const message = (await h.inject({ method: 'GET', url: `/tenant-documents/${tdoc.id}/sign?address=${account.address}&chainType=evm`, headers })).json();
  const signed = await h.inject({ method: 'POST', url: `/tenant-documents/${tdoc.id}/sign`, headers, payload: { address: account.address, nonce: message.nonce, signature: await account.signTypedData(message.typedData) } });
  foreign = { tenant, userDocId: doc.id, tenantDocId: tdoc.id, signedId: signed.json().id, title: 'Foreign' };
  return foreign;
}

async function foreignTenantDocUnchanged() {
  const f = foreign!;
  const res = await h.inject({ method: 'GET', url: `/tenant-documents/${f.tenantDocId}`, headers: h.keyHeaders(f.tenant) });
  expect(res.statusCode).toBe(200);
  expect(res.json()).toMatchObject({ title: f.title, deletedAt: null, signatures: 1 });
}

const evmSign = () => ({ address: account.address, nonce: 'a'.repeat(32), signature: `0x${'11'.repeat(65)}` });
const xrplSign = () => ({ address: 'rPT1Sjq2YGrBMTttX4GZHjKu9dyfzbpAYe', nonce: 'a'.repeat(32), signature: 'AB'.repeat(70), publicKey: `02${'11'.repeat(32)}` });

routeCases(() => h, 'POST /user-documents', { url: () => '/user-documents', payload: () => ({ type: 'identity', name: 'x', userId }), accepts: { apiKey: true, bearer: 'user' } });
routeCases(() => h, 'POST /user-documents/from-url', { url: () => '/user-documents/from-url', payload: () => ({ type: 'identity', name: 'x', userId, url: 'https://127.0.0.1/x.pdf' }), accepts: { apiKey: true, bearer: 'user' } });
routeCases(() => h, 'GET /user-documents', { url: () => `/user-documents?userId=${userId}`, accepts: { apiKey: true, bearer: 'user' } });
routeCases(() => h, 'GET /user-documents/{id}', {
  url: () => `/user-documents/${userDocId}`,
  accepts: { apiKey: true, bearer: 'user' },
  foreign: async () => `/user-documents/${(await foreignObjects()).userDocId}`,
});
routeCases(() => h, 'GET /user-documents/{id}/content', {
  url: () => `/user-documents/${userDocId}/content`,
  accepts: { apiKey: true, bearer: 'user' },
  foreign: async () => `/user-documents/${(await foreignObjects()).userDocId}/content`,
});
routeCases(() => h, 'POST /tenant-documents', { url: () => '/tenant-documents', payload: () => ({ title: 'x', contentBase64: makePdf().toString('base64') }), accepts: { apiKey: true, bearer: 'admin' } });
routeCases(() => h, 'GET /tenant-documents', { url: () => '/tenant-documents', accepts: { apiKey: true, bearer: 'admin' } });
routeCases(() => h, 'GET /tenant-documents/{id}', {
  url: () => `/tenant-documents/${tenantDocId}`,
  accepts: { apiKey: true, bearer: 'user' },
  foreign: async () => `/tenant-documents/${(await foreignObjects()).tenantDocId}`,
});
routeCases(() => h, 'GET /tenant-documents/{id}/content', {
  url: () => `/tenant-documents/${tenantDocId}/content`,
  accepts: { apiKey: true, bearer: 'user' },
  foreign: async () => `/tenant-documents/${(await foreignObjects()).tenantDocId}/content`,
});
routeCases(() => h, 'PATCH /tenant-documents/{id}', {
  url: () => `/tenant-documents/${tenantDocId}`,
  payload: () => ({ title: 'Changed' }),
  accepts: { apiKey: true, bearer: 'admin' },
  foreign: async () => `/tenant-documents/${(await foreignObjects()).tenantDocId}`,
  unchanged: foreignTenantDocUnchanged,
});
routeCases(() => h, 'DELETE /tenant-documents/{id}', {
  url: () => `/tenant-documents/${crypto.randomUUID()}`,
  accepts: { apiKey: true, bearer: 'admin' },
  foreign: async () => `/tenant-documents/${(await foreignObjects()).tenantDocId}`,
  unchanged: foreignTenantDocUnchanged,
});
routeCases(() => h, 'GET /tenant-documents/{id}/sign', {
  url: () => `/tenant-documents/${tenantDocId}/sign?address=${privateKeyToAccount(generatePrivateKey()).address}&chainType=evm`,
  accepts: { bearer: 'user' },
  foreign: async () => `/tenant-documents/${(await foreignObjects()).tenantDocId}/sign?address=${privateKeyToAccount(generatePrivateKey()).address}&chainType=evm`,
});
routeCases(() => h, 'POST /tenant-documents/{id}/sign', {
  url: () => `/tenant-documents/${tenantDocId}/sign`,
  payload: evmSign,
  accepts: { bearer: 'user' },
  foreign: async () => `/tenant-documents/${(await foreignObjects()).tenantDocId}/sign`,
  unchanged: foreignTenantDocUnchanged,
});
routeCases(() => h, 'POST /tenant-documents/{id}/sign/xrpl', {
  url: () => `/tenant-documents/${tenantDocId}/sign/xrpl`,
  payload: xrplSign,
  accepts: { bearer: 'user' },
  foreign: async () => `/tenant-documents/${(await foreignObjects()).tenantDocId}/sign/xrpl`,
  unchanged: foreignTenantDocUnchanged,
});
routeCases(() => h, 'GET /signed-documents', { url: () => '/signed-documents', accepts: { apiKey: true, bearer: 'user' } });
routeCases(() => h, 'GET /signed-documents/{id}', {
  url: () => `/signed-documents/${signedId}`,
  accepts: { apiKey: true, bearer: 'user' },
  foreign: async () => `/signed-documents/${(await foreignObjects()).signedId}`,
});

describe('one user, another user', () => {
  it("a user reading another user's document, its content or signed document is 404; lists show only their own", async () => {
    const other = h.bearerHeaders(await h.tokenFor(await h.createUser()));
    for (const url of [`/user-documents/${userDocId}`, `/user-documents/${userDocId}/content`, `/signed-documents/${signedId}`]) {
      const res = await h.inject({ method: 'GET', url, headers: other });
      expect(res.statusCode, url).toBe(404);
    }
    expect((await h.inject({ method: 'GET', url: `/user-documents?userId=${userId}`, headers: other })).statusCode).toBe(404);
    expect((await h.inject({ method: 'GET', url: '/user-documents', headers: other })).json().total).toBe(0);
    expect((await h.inject({ method: 'GET', url: `/signed-documents?userId=${userId}`, headers: other })).json().total).toBe(0);
    // The owner, an admin and the API key read it.
    expect((await h.inject({ method: 'GET', url: `/user-documents/${userDocId}`, headers: userHeaders })).statusCode).toBe(200);
    expect((await h.inject({ method: 'GET', url: `/user-documents/${userDocId}`, headers: h.keyHeaders() })).statusCode).toBe(200);
  });
});

describe('from-URL imports under the production rule (no test-only setting)', () => {
  it('refuses http, loopback, a DNS name that resolves to 127.0.0.1, and private addresses', async () => {
    for (const url of ['http://example.com/a.pdf', 'https://127.0.0.1/a.pdf', 'https://localhost/a.pdf', 'https://[::1]/a.pdf', 'https://10.1.2.3/a.pdf', 'https://[fd12::1]/a.pdf', 'https://169.254.169.254/']) {
      const res = await h.inject({ method: 'POST', url: '/user-documents/from-url', headers: userHeaders, payload: { type: 'identity', name: 'x', url } });
      expect(res.statusCode, url).toBe(400);
      expect(res.json().code, url).toBe('DOCUMENT_URL_REFUSED');
    }
  });
});
