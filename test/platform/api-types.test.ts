import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';

/**
 * The typed client @bastion/client (clients/typescript) is generated from the app's own
 * /openapi.json: src/schema.ts (openapi-typescript) and src/types.ts (one named type per
 * component schema). The project's typed test client (test/helpers/api.ts) uses the same
 * types. This fails when a route's schema changed and the files were not regenerated:
 * `npm run client:generate` (or its alias `npm run api:types`) rewrites them.
 */
const dir = join(import.meta.dirname, '..', '..', 'clients', 'typescript', 'src');
const HEADER = '// Generated from /openapi.json by `npm run client:generate` (test/platform/api-types.test.ts). Do not edit.\n';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h.close());

/** `export type User = components['schemas']['User'];` for every component schema. */
function namedTypes(schemaNames: string[]): string {
  const lines = schemaNames.map((name) => `export type ${name} = components['schemas']['${name}'];`);
  return `${HEADER}import type { components } from './schema.js';\n\n${lines.join('\n')}\n`;
}

function check(file: string, generated: string): void {
  const path = join(dir, file);
  if (process.env.UPDATE_API_TYPES === '1') writeFileSync(path, generated);
  expect(readFileSync(path, 'utf8') === generated, `clients/typescript/src/${file} is stale: run \`npm run client:generate\``).toBe(true);
}

describe('the typed client @bastion/client', () => {
  it('clients/typescript/src/schema.ts and types.ts match the app’s OpenAPI document', async () => {
    const res = await h.inject({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    const document = res.json();
    check('schema.ts', HEADER + astToString(await openapiTS(document, { alphabetize: true })));
    check('types.ts', namedTypes(Object.keys(document.components.schemas).sort()));
  });
});
