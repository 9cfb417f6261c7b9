import { afterAll, beforeAll, describe } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { securityCases } from '../helpers/security.js';

let h: Harness;
let userId: string;
beforeAll(async () => {
  h = await createHarness();
  userId = await h.createUser();
});
afterAll(async () => h.close());

describe('POST /users', () => securityCases(() => h, { method: 'POST', url: () => '/users', payload: () => ({ email: 'sec@example.com' }), accepts: { apiKey: true } }));
describe('GET /users', () => securityCases(() => h, { method: 'GET', url: () => '/users', accepts: { apiKey: true, bearer: 'admin' } }));
describe('GET /users/{id}', () => securityCases(() => h, { method: 'GET', url: () => `/users/${userId}`, accepts: { apiKey: true } }));
describe('PATCH /users/{id}', () =>
  securityCases(() => h, { method: 'PATCH', url: () => `/users/${userId}`, payload: () => ({ fullName: 'x' }), accepts: { apiKey: true } }));
describe('GET /users/wallet-addresses/{userId}', () =>
  securityCases(() => h, { method: 'GET', url: () => `/users/wallet-addresses/${userId}`, accepts: { apiKey: true, bearer: 'user' } }));
describe('GET /users/me', () => securityCases(() => h, { method: 'GET', url: () => '/users/me', accepts: { bearer: 'user' } }));
describe('PATCH /users/me', () =>
  securityCases(() => h, { method: 'PATCH', url: () => '/users/me', payload: () => ({ fullName: 'x' }), accepts: { bearer: 'user' } }));
