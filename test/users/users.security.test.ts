import { afterAll, beforeAll, expect } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { routeCases } from '../helpers/security.js';

let h: Harness;
let userId: string;
beforeAll(async () => {
  h = await createHarness();
  userId = await h.createUser();
});
afterAll(async () => h.close());

/** A user of another tenant, and a check that it still reads as created. */
let foreignUser: { tenantId: string; apiKey: string; userId: string } | undefined;
async function otherTenantsUser(): Promise<string> {
  const other = await h.newTenant();
  foreignUser = { ...other, userId: await h.createUser(other, `foreign-${other.tenantId}@example.com`) };
  return foreignUser.userId;
}
async function foreignUserUnchanged(): Promise<void> {
  const res = await h.inject({ method: 'GET', url: `/users/${foreignUser!.userId}`, headers: { 'x-tenant-id': foreignUser!.tenantId, 'x-api-key': foreignUser!.apiKey } });
  expect(res.json()).toMatchObject({ fullName: null, phone: null });
}

routeCases(() => h, 'POST /users', { url: () => '/users', payload: () => ({ email: 'sec@example.com' }), accepts: { apiKey: true } });
routeCases(() => h, 'GET /users', { url: () => '/users', accepts: { apiKey: true, bearer: 'admin' } });
routeCases(() => h, 'GET /users/{id}', { url: () => `/users/${userId}`, accepts: { apiKey: true, bearer: 'admin' }, foreign: async () => `/users/${await otherTenantsUser()}` });
routeCases(() => h, 'PATCH /users/{id}', {
  url: () => `/users/${userId}`,
  payload: () => ({ fullName: 'x' }),
  accepts: { apiKey: true },
  foreign: async () => `/users/${await otherTenantsUser()}`,
  unchanged: foreignUserUnchanged,
});
routeCases(() => h, 'GET /users/wallet-addresses/{userId}', {
  url: () => `/users/wallet-addresses/${userId}`,
  accepts: { apiKey: true, bearer: 'user' },
  foreign: async () => `/users/wallet-addresses/${await otherTenantsUser()}`,
});
routeCases(() => h, 'GET /users/me', { url: () => '/users/me', accepts: { bearer: 'user' } });
routeCases(() => h, 'PATCH /users/me', { url: () => '/users/me', payload: () => ({ fullName: 'x' }), accepts: { bearer: 'user' } });
