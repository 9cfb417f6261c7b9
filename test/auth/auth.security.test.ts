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

describe('POST /auth/users/{userId}/token', () => securityCases(() => h, { method: 'POST', url: () => `/auth/users/${userId}/token`, accepts: { apiKey: true } }));
describe('POST /auth/logout', () => securityCases(() => h, { method: 'POST', url: () => '/auth/logout', accepts: { bearer: 'user' } }));
