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

describe('GET /kyc/identity/root', () =>
  securityCases(() => h, { method: 'GET', url: () => `/kyc/identity/root?userId=${userId}`, accepts: { apiKey: true, bearer: 'user' } }));
describe('GET /kyc/identity/proof', () =>
  securityCases(() => h, { method: 'GET', url: () => `/kyc/identity/proof?path=user.id&userId=${userId}`, accepts: { apiKey: true, bearer: 'user' } }));
