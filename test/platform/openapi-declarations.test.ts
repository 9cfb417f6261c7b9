import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- the OpenAPI document is walked as plain JSON */
let h: Harness;
let doc: any;
let operations: Array<{ method: string; path: string; op: any }>;
beforeAll(async () => {
  h = await createHarness();
  doc = (await h.inject({ method: 'GET', url: '/openapi.json' })).json();
  operations = Object.entries<Record<string, any>>(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ method: method.toUpperCase(), path, op })),
  );
});
afterAll(async () => h.close());

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** A `$ref` of the document followed (shared responses, named schemas); `allOf` parts merged. */
function resolved(node: any): any {
  if (node?.$ref) return resolved(node.$ref.slice(2).split('/').reduce((at: any, key: string) => at?.[key], doc));
  if (Array.isArray(node?.allOf)) {
    const parts = node.allOf.map(resolved);
    return { ...node, properties: Object.assign({}, ...parts.map((part: any) => part.properties ?? {})) };
  }
  return node;
}

/** What every operation must declare, from what it is: the failures, one line each. */
function missingDeclarations(method: string, path: string, op: any): string[] {
  const problems: string[] = [];
  const statuses = Object.keys(op.responses ?? {}).map(Number);
  const need = (status: number, why: string) => {
    if (!statuses.includes(status)) problems.push(`${method} ${path} does not declare ${status} (${why})`);
  };
  for (const status of [400, 408, 429, 431, 500, 503]) need(status, 'every route');
  if (BODY_METHODS.has(method)) {
    const schema = op.requestBody?.content?.['application/json']?.schema;
    if (!schema) problems.push(`${method} ${path} declares no JSON body (an empty object when it takes none)`);
    need(413, 'takes a body');
    need(415, 'takes a body');
  }
  if (path.includes('{')) need(414, 'has a path parameter');
  const security: Array<Record<string, unknown>> = op.security ?? [];
  if (security.some((alt) => 'tenant' in alt)) need(401, 'tenant-scoped');
  if (security.some((alt) => 'apiKey' in alt || 'bearer' in alt)) need(403, 'takes a credential with a role');
  if (security.some((alt) => 'webhookSignature' in alt)) need(401, 'signed');
  for (const [status, response] of Object.entries<any>(op.responses ?? {})) {
    if (Number(status) < 400) continue;
    const shape = resolved(resolved(response)?.content?.['application/json']?.schema);
    if (!shape || !['statusCode', 'error', 'message', 'code'].every((k) => k in (shape.properties ?? {}))) {
      problems.push(`${method} ${path} ${status} is not documented in the error shape`);
    }
  }
  for (const parameter of op.parameters ?? []) {
    if (parameter.required && parameter.schema && 'default' in parameter.schema) problems.push(`${method} ${path} marks ${parameter.name} required though it has a default`);
  }
  return problems;
}

describe('every operation of /openapi.json declares its body and every status it can answer', () => {
  it('walks all operations', () => {
    expect(operations.length).toBeGreaterThan(40);
    expect(operations.flatMap(({ method, path, op }) => missingDeclarations(method, path, op))).toEqual([]);
  });

  it('the walker fails on an operation that declares nothing', () => {
    const problems = missingDeclarations('POST', '/x/{id}', { security: [{ tenant: [], apiKey: [] }], responses: { 201: {} } });
    expect(problems).toEqual(expect.arrayContaining([
      'POST /x/{id} declares no JSON body (an empty object when it takes none)',
      'POST /x/{id} does not declare 415 (takes a body)',
      'POST /x/{id} does not declare 414 (has a path parameter)',
      'POST /x/{id} does not declare 403 (takes a credential with a role)',
    ]));
  });

  it('lists: limit and offset are optional; bodies without required fields are optional', () => {
    const list = operations.find((o) => o.method === 'GET' && o.path === '/users')!;
    const names = (list.op.parameters as any[]).filter((p) => p.required).map((p) => p.name);
    expect(names).not.toContain('limit');
    expect(names).not.toContain('offset');
    const reject = operations.find((o) => o.method === 'PUT' && o.path === '/kyc/reject/{kycId}')!;
    expect(reject.op.requestBody.required).toBe(false);
    const create = operations.find((o) => o.method === 'POST' && o.path === '/users')!;
    expect(create.op.requestBody.required).toBe(true);
  });

  it('GET /auth/email/verify documents the mailed token, not the access-token scheme', () => {
    const verify = operations.find((o) => o.method === 'GET' && o.path === '/auth/email/verify')!;
    expect(verify.op.security).toEqual([{ tenant: [], mailedToken: [] }]);
  });

  it('the operations that took any body now declare an empty one and refuse fields', async () => {
    const userId = await h.createUser();
    const res = await h.inject({ method: 'POST', url: `/auth/users/${userId}/token`, headers: h.keyHeaders(), payload: { extra: 1 } });
    expect(res.statusCode).toBe(400);
    const ok = await h.inject({ method: 'POST', url: `/auth/users/${userId}/token`, headers: h.keyHeaders() });
    expect(ok.statusCode, ok.body).toBe(201);
  });
});
