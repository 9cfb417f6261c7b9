import { afterAll, beforeAll } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { routeCases } from '../helpers/security.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h.close());

routeCases(() => h, 'GET /audit-events', { url: () => '/audit-events', accepts: { apiKey: true, bearer: 'admin' } });

// The NDJSON export: the same credential and tenant cases, answered as JSON errors before any stream starts.
routeCases(() => h, 'GET /audit-events', { url: () => '/audit-events?format=ndjson', accepts: { apiKey: true, bearer: 'admin' } });
