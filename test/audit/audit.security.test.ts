import { afterAll, beforeAll, describe } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { securityCases } from '../helpers/security.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h.close());

describe('GET /audit-events', () => securityCases(() => h, { method: 'GET', url: () => '/audit-events', accepts: { apiKey: true, bearer: 'admin' } }));
