import { afterAll, beforeAll } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { routeCases } from '../helpers/security.js';

let h: Harness;
let userId: string;
beforeAll(async () => {
  h = await createHarness();
  userId = await h.createUser();
});
afterAll(async () => h.close());

routeCases(() => h, 'GET /kyc/identity/root', { url: () => `/kyc/identity/root?userId=${userId}`, accepts: { apiKey: true, bearer: 'user' } });
routeCases(() => h, 'GET /kyc/identity/proof', { url: () => `/kyc/identity/proof?path=user.id&userId=${userId}`, accepts: { apiKey: true, bearer: 'user' } });
