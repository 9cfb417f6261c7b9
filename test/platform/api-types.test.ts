import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';

/**
 * test/types/api.d.ts, the types of the typed test client (test/helpers/api.ts), is generated
 * from the app's own /openapi.json. This fails when a route's schema changed and the file was
 * not regenerated: `npm run api:types` rewrites it.
 */
const file = join(import.meta.dirname, '..', 'types', 'api.d.ts');
const HEADER = '// Generated from /openapi.json by `npm run api:types` (test/platform/api-types.test.ts). Do not edit.\n';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h.close());

describe('typed test client', () => {
  it('test/types/api.d.ts matches the app’s OpenAPI document', async () => {
    const res = await h.inject({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    const generated = HEADER + astToString(await openapiTS(res.json(), { alphabetize: true }));
    if (process.env.UPDATE_API_TYPES === '1') writeFileSync(file, generated);
    expect(readFileSync(file, 'utf8') === generated, 'test/types/api.d.ts is stale: run `npm run api:types`').toBe(true);
  });
});
