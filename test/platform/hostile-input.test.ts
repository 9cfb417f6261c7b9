import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { openApiDocument } from '../helpers/openapi.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- the OpenAPI document is walked as plain JSON */

/**
 * Every hostile input of issue 20 sent to every operation of /openapi.json and to the hidden
 * pages (mail links, provider sandboxes), with credentials that pass the guards, so the input
 * reaches validation and the handlers: no answer is a 5xx, every error has the error shape.
 */
let h: Harness;
let headersFor: (op: any) => Promise<Record<string, string>>;
let operations: Array<{ method: string; path: string; op: any }>;

const HIDDEN: Array<{ method: string; path: string; form?: boolean }> = [
  { method: 'GET', path: '/auth/pages/verify-email' },
  { method: 'POST', path: '/auth/pages/verify-email', form: true },
  { method: 'GET', path: '/auth/pages/reset-password' },
  { method: 'POST', path: '/auth/pages/reset-password', form: true },
  { method: 'POST', path: '/sandbox/idv-a/v1/sessions' },
  { method: 'GET', path: '/sandbox/idv-a/s/{id}' },
  { method: 'POST', path: '/sandbox/idv-a/s/{id}', form: true },
  { method: 'POST', path: '/sandbox/idv-b/v1/sessions' },
  { method: 'GET', path: '/sandbox/idv-b/s/{id}' },
  { method: 'POST', path: '/sandbox/idv-b/s/{id}', form: true },
];

beforeAll(async () => {
  // Raised limits: thousands of requests from one address must reach validation, not the limiter.
  h = await createHarness({ listen: true, rateLimit: { globalMax: 1_000_000, loginPerIp: 1_000_000 } });
  const doc = await openApiDocument(h);
  operations = Object.entries<Record<string, any>>(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ method: method.toUpperCase(), path, op })),
  );
  const adminId = await h.createUser(undefined, undefined, 'admin');
  // The IdP has no sandbox: without settings its routes are 503 PROVIDER_NOT_CONFIGURED before
  // any input is read. With these (a provider never reached: no request below is allowed to
  // return to its one client URL) the hostile input reaches the IdP routes' own rules.
  await h.container.idpConfig.set(h.tenant.tenantId, { issuer: 'http://127.0.0.1:1', clientId: 'hostile', clientSecret: 'hostile-secret', redirectAllow: ['https://app.example/only'] });
  // A fresh session per operation: POST /auth/logout ends the one it is sent with.
  headersFor = async (op) => {
    const security: Array<Record<string, unknown>> = op.security ?? [];
    if (security.some((alt) => 'apiKey' in alt)) return h.keyHeaders();
    if (security.some((alt) => 'bearer' in alt)) return h.bearerHeaders(await h.tokenFor(adminId));
    if (security.some((alt) => 'tenant' in alt)) return { 'x-tenant-id': h.tenant.tenantId };
    return {};
  };
}, 240_000);
afterAll(async () => h.close());

const NUL_TEXT = ['a\u0000b', '\u0000', 'x\ud800y'];
const PATH_VALUES = ['%00', 'a%00b', 'x'.repeat(300), '1e309', '-1', '%ED%A0%80', '..%2F..%2Fetc', "x' or 1=1 --"];
const QUERY_VALUES = ['%00', 'a%00b', '1e309', '-1e309', 'NaN', '%ED%A0%80', 'x'.repeat(5000)];

function fill(path: string, value: string): string {
  return path.replace(/\{[^}]+\}/g, value);
}

/** A plausible value for each required query parameter, so the hostile one is what is judged. */
function baseQuery(op: any): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of op.parameters ?? []) {
    if (p.in === 'query' && p.required) out[p.name] = p.schema?.format === 'uuid' ? crypto.randomUUID() : 'x';
  }
  return out;
}

function queryString(values: Record<string, string>): string {
  return Object.entries(values)
    .map(([k, v]) => `${encodeURIComponent(k)}=${v}`)
    .join('&');
}

function bodyFields(op: any): string[] {
  const schema = op.requestBody?.content?.['application/json']?.schema;
  const props = schema?.properties ?? schema?.anyOf?.find((s: any) => s.properties)?.properties ?? {};
  return Object.keys(props).length > 0 ? Object.keys(props) : ['field'];
}

function hostileBodies(fields: string[]): Array<{ type?: string; payload: string }> {
  const json = (payload: string) => ({ type: 'application/json', payload });
  const bodies = [
    json('null'),
    json('[]'),
    json('"text"'),
    json('12345'),
    json('['.repeat(1000) + ']'.repeat(1000)),
    json(`{"a":${'{"a":'.repeat(1000)}1${'}'.repeat(1000)}}`),
    json('{"__proto__":{"admin":true}}'),
    json('{"constructor":{"prototype":{"admin":true}}}'),
    json('{"a\\u0000":1}'),
    json('{"x": 1e309}'),
    json('{'),
    { type: 'text/plain', payload: 'hello' },
    { type: 'application/x-www-form-urlencoded', payload: 'a=%00' },
    { payload: '{"a":1}' },
  ];
  for (const field of fields) {
    for (const text of NUL_TEXT) bodies.push(json(JSON.stringify({ [field]: text })));
    bodies.push(json(`{"${field}":12345}`), json(`{"${field}":1e309}`), json(`{"${field}":-1e309}`), json(`{"${field}":["\\u0000"]}`), json(`{"${field}":{"a":"\\u0000"}}`));
  }
  return bodies;
}

async function send(method: string, url: string, headers: Record<string, string>, body?: { type?: string; payload: string }) {
  const res = await h.inject({
    method: method as 'GET',
    url,
    headers: body?.type ? { ...headers, 'content-type': body.type } : headers,
    payload: body?.payload,
  });
  return res;
}

function judge(failures: string[], label: string, res: { statusCode: number; headers: Record<string, unknown>; body: string }): void {
  if (res.statusCode >= 500) failures.push(`${label} -> ${res.statusCode} ${res.body.slice(0, 200)}`);
  if (res.statusCode >= 400 && String(res.headers['content-type'] ?? '').startsWith('application/json')) {
    const parsed = JSON.parse(res.body);
    if (typeof parsed.code !== 'string' || typeof parsed.message !== 'string' || parsed.statusCode !== res.statusCode) {
      failures.push(`${label} -> ${res.statusCode} not in the error shape: ${res.body.slice(0, 200)}`);
    }
  }
}

describe('hostile input to every operation', () => {
  it('no 5xx, and every JSON error in the error shape', async () => {
    const failures: string[] = [];
    let sent = 0;
    let limited = 0;
    const all = [...operations.map((o) => ({ ...o, form: false })), ...HIDDEN.map((o) => ({ ...o, op: {} }))];
    for (const { method, path, op } of all) {
      const headers = await headersFor(op);
      const base = baseQuery(op);
      const validPath = fill(path, crypto.randomUUID());
      const qs = (extra: Record<string, string>) => `?${queryString({ ...base, ...extra })}`;
      const tries: Array<[string, string, { type?: string; payload: string } | undefined]> = [];
      if (path.includes('{')) for (const value of PATH_VALUES) tries.push([`path=${value.slice(0, 20)}`, fill(path, value) + qs({}), undefined]);
      const queryNames = [...(op.parameters ?? []).filter((p: any) => p.in === 'query').map((p: any) => p.name), 'limit', 'offset', 'unknown'];
      for (const name of new Set(queryNames)) {
        for (const value of QUERY_VALUES) tries.push([`query ${name}=${value.slice(0, 20)}`, validPath + qs({ [name]: value }), undefined]);
      }
      if (method !== 'GET') for (const body of hostileBodies(bodyFields(op))) tries.push([`body ${body.type ?? 'untyped'} ${body.payload.slice(0, 40)}`, validPath + qs({}), body]);
      for (const [label, url, body] of tries) {
        const res = await send(method, url, headers, body);
        judge(failures, `${method} ${path} ${label}`, res);
        sent++;
        if (res.statusCode === 429) limited++;
      }
    }
    expect(failures).toEqual([]);
    expect(sent).toBeGreaterThan(2000);
    expect(limited).toBeLessThan(sent / 20);
  }, 900_000);

  it('NUL reaches no handler: with valid credentials every NUL body, query or path is a 400', async () => {
    const failures: string[] = [];
    for (const { method, path, op } of operations) {
      const signed = (op.security ?? []).some((alt: any) => 'webhookSignature' in alt);
      if (signed) continue; // signature first (401); signed bodies are cleaned, not refused
      const headers = await headersFor(op);
      const url = fill(path, crypto.randomUUID()) + `?${queryString({ ...baseQuery(op), unknownNul: '%00' })}`;
      const res = await send(method, url, headers);
      if (res.statusCode !== 400) failures.push(`${method} ${path} query NUL -> ${res.statusCode}`);
      if (method !== 'GET') {
        const body = await send(method, fill(path, crypto.randomUUID()) + `?${queryString(baseQuery(op))}`, headers, { type: 'application/json', payload: JSON.stringify({ [bodyFields(op)[0]!]: 'a\u0000' }) });
        if (body.statusCode !== 400) failures.push(`${method} ${path} body NUL -> ${body.statusCode}`);
      }
    }
    expect(failures).toEqual([]);
  }, 300_000);
});
