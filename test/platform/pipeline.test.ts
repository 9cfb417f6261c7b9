import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { compileErrors, validate } from '@readme/openapi-parser';
import helmet from 'helmet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { helmetHeaders } from '../../src/platform/http/security-headers.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { expectError } from '../helpers/security.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness({
    beforeReady: (app) =>
      app.get('/__test/boom', { schema: { hide: true } }, async () => {
        throw new Error("select * from users where password = 'hunter2'");
      }),
  });
});
afterAll(async () => h.close());

describe('request pipeline', () => {
  it('unknown routes and wrong methods answer 404 in the error shape', async () => {
    expectError(await h.inject({ method: 'GET', url: '/nope' }), 404, 'ROUTE_NOT_FOUND');
    expectError(await h.inject({ method: 'DELETE', url: '/users', headers: h.keyHeaders() }), 404, 'ROUTE_NOT_FOUND');
  });

  it('sets security headers and a request id, and echoes a safe incoming request id', async () => {
    const res = await h.inject({ method: 'GET', url: '/health', headers: { 'x-request-id': 'abc-123' } });
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['strict-transport-security']).toBeTruthy();
    expect(res.headers['x-request-id']).toBe('abc-123');
    const unsafe = await h.inject({ method: 'GET', url: '/health', headers: { 'x-request-id': 'a b\nc' } });
    expect(unsafe.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("sends helmet's security headers, computed once, on every response (errors and 401s too)", async () => {
    // What helmet's middleware sets on a real response, header for header.
    const response = new ServerResponse(new IncomingMessage(new Socket()));
    helmet()(response.req, response, () => undefined);
    const expected = helmetHeaders();
    expect(Object.fromEntries(Object.entries(response.getHeaders()).map(([k, v]) => [k, String(v)]))).toEqual(expected);
    expect(Object.keys(expected)).toEqual(expect.arrayContaining(['content-security-policy', 'strict-transport-security', 'x-frame-options']));
    for (const res of [
      await h.inject({ method: 'GET', url: '/health' }),
      await h.inject({ method: 'GET', url: '/nope' }),
      await h.inject({ method: 'GET', url: '/users/me', headers: { 'x-tenant-id': h.tenant.tenantId } }),
    ]) {
      for (const [name, value] of Object.entries(expected)) expect(res.headers[name]).toBe(value);
    }
  });

  it('health and ready live outside tenancy', async () => {
    expect((await h.inject({ method: 'GET', url: '/health' })).json()).toEqual({ status: 'ok' });
    expect((await h.inject({ method: 'GET', url: '/ready' })).json()).toMatchObject({ status: 'ready', sandboxes: ['idv-a', 'idv-b', 'business-profile-a', 'bank-link', 'custody-a', 'custody-b', 'xrpl-ledger'], checks: { evmChain: { mode: 'local', chainId: 31337 } } });
  });

  it('an internal error is a 500 with no stack, SQL or detail, and is logged', async () => {
    const res = await h.inject({ method: 'GET', url: '/__test/boom' });
    expect(res.json()).toEqual({ statusCode: 500, error: 'Internal Server Error', message: 'Internal server error', code: 'INTERNAL' });
    expect(res.body).not.toMatch(/select|hunter2|stack|at /i);
    expect(h.logs.text()).toContain('request failed');
  });
});

describe('OpenAPI', () => {
  it('/openapi.json is valid OpenAPI 3.1 documenting security and errors of every route', async () => {
    const res = await h.inject({ method: 'GET', url: '/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toBe('3.1.0');
    const result = await validate(structuredClone(doc));
    expect(result.valid, result.valid ? '' : compileErrors(result)).toBe(true);
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['apiKey', 'bearer', 'eventSignature', 'mailedToken', 'tenant', 'webhookSignature']);
    const ops = Object.entries(doc.paths as Record<string, Record<string, { security?: unknown[]; responses: Record<string, unknown> }>>).flatMap(
      ([path, methods]) => Object.entries(methods).map(([method, op]) => ({ path, method, op })),
    );
    expect(ops.length).toBeGreaterThanOrEqual(7);
    for (const { path, op } of ops) {
      if (path.startsWith('/.well-known/')) continue; // outside tenancy, public by design
      // The provider sends the browser here: no header is possible, the single-use state is the credential.
      if (path === '/auth/idp/callback') {
        expect(op.security).toEqual([]);
        expect(op.responses).toHaveProperty('303');
        continue;
      }
      expect(op.security?.length).toBeGreaterThan(0);
      expect(op.responses).toHaveProperty('401');
      expect(op.responses).toHaveProperty('400');
    }
    expect(doc.paths['/users'].post.security).toEqual([{ tenant: [], apiKey: [] }]);
    expect(doc.paths['/users/me'].get.security).toEqual([{ tenant: [], bearer: [] }]);
    expect(doc.paths['/users/me'].patch.responses).toHaveProperty('409');
  });

  it('/docs serves a readable page', async () => {
    const res = await h.inject({ method: 'GET', url: '/docs/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.body).toContain('swagger');
  });
});
