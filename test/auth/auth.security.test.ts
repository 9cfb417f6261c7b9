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

routeCases(() => h, 'POST /auth/users/{userId}/token', {
  url: () => `/auth/users/${userId}/token`,
  accepts: { apiKey: true },
  foreign: async () => `/auth/users/${await h.createUser(await h.newTenant())}/token`,
});
routeCases(() => h, 'POST /auth/logout', { url: () => '/auth/logout', accepts: { bearer: 'user' } });
