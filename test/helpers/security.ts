import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Harness } from './harness.js';
import { malformedRequests, type Operation } from './malformed.js';
import { openApiDocument } from './openapi.js';

export interface SecuredRoute {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  /** The URL, built when the case runs (ids may come from a beforeAll). */
  url: () => string;
  payload?: () => unknown;
  /** The credentials the route accepts. */
  accepts: { apiKey?: boolean; bearer?: 'user' | 'admin' };
}

function expectError(res: { statusCode: number; json: () => unknown }, status: number, code: string): void {
  expect(res.statusCode).toBe(status);
  expect(res.json()).toMatchObject({ statusCode: status, code, error: expect.any(String), message: expect.any(String) });
}

/**
 * The security cases every tenant-scoped route must pass: no tenant, unknown or malformed
 * tenant, no credential, wrong / revoked / foreign API key, malformed or foreign bearer,
 * and the wrong kind of credential or role.
 */
export function securityCases(h: () => Harness, route: SecuredRoute): void {
  const call = (headers: Record<string, string>) =>
    h().inject({ method: route.method, url: route.url(), headers, payload: route.payload?.() as never });

  describe(`${route.method} security`, () => {
    it('401 without x-tenant-id, even with a valid API key', async () => {
      expectError(await call({ 'x-api-key': h().tenant.apiKey }), 401, 'TENANT_REQUIRED');
    });
    it('401 with an unknown tenant', async () => {
      expectError(await call({ 'x-tenant-id': randomUUID(), 'x-api-key': h().tenant.apiKey }), 401, 'TENANT_UNKNOWN');
    });
    it('401 with a malformed tenant id', async () => {
      expectError(await call({ 'x-tenant-id': "x' or 1=1 --", 'x-api-key': h().tenant.apiKey }), 401, 'TENANT_UNKNOWN');
    });
    it('401 without any credential', async () => {
      expectError(await call({ 'x-tenant-id': h().tenant.tenantId }), 401, 'CREDENTIALS_REQUIRED');
    });
    it('401 with a wrong API key', async () => {
      const wrong = h().tenant.apiKey.slice(0, -4) + 'AAAA';
      expectError(await call({ 'x-tenant-id': h().tenant.tenantId, 'x-api-key': wrong }), 401, 'API_KEY_INVALID');
      expectError(await call({ 'x-tenant-id': h().tenant.tenantId, 'x-api-key': 'garbage' }), 401, 'API_KEY_INVALID');
    });
    it("401 with another tenant's API key", async () => {
      const other = await h().newTenant();
      expectError(await call({ 'x-tenant-id': h().tenant.tenantId, 'x-api-key': other.apiKey }), 401, 'API_KEY_INVALID');
    });
    it('401 with a revoked API key', async () => {
      const key = await h().container.tenants.createApiKey(h().tenant.tenantId, 'to-revoke');
      await h().container.tenants.revokeApiKey(h().tenant.tenantId, key.keyId);
      expectError(await call({ 'x-tenant-id': h().tenant.tenantId, 'x-api-key': key.apiKey }), 401, 'API_KEY_INVALID');
    });
    it('401 with a malformed or unknown bearer token', async () => {
      expectError(await call({ 'x-tenant-id': h().tenant.tenantId, authorization: 'Bearer not-a-token' }), 401, 'TOKEN_INVALID');
      expectError(await call({ 'x-tenant-id': h().tenant.tenantId, authorization: 'Basic abc' }), 401, 'TOKEN_INVALID');
    });
    it("401 with a token of another tenant under this tenant's header", async () => {
      const other = await h().newTenant();
      const userId = await h().createUser(other, undefined, 'admin');
      const token = await h().tokenFor(userId, other);
      expectError(await call(h().bearerHeaders(token)), 401, 'TOKEN_INVALID');
    });
    if (!route.accepts.bearer) {
      it('403 with a user bearer token (API key required)', async () => {
        const userId = await h().createUser(undefined, undefined, 'admin');
        expectError(await call(h().bearerHeaders(await h().tokenFor(userId))), 403, 'FORBIDDEN');
      });
    }
    if (route.accepts.bearer === 'admin') {
      it('403 with a plain user bearer token (admin required)', async () => {
        const userId = await h().createUser();
        expectError(await call(h().bearerHeaders(await h().tokenFor(userId))), 403, 'FORBIDDEN');
      });
    }
    if (!route.accepts.apiKey) {
      it('403 with an API key (bearer required)', async () => {
        expectError(await call(h().keyHeaders()), 403, 'FORBIDDEN');
      });
    }
  });
}

export { expectError };

type Method = SecuredRoute['method'];

export interface RouteCaseSpec extends Omit<SecuredRoute, 'method'> {
  /**
   * The URL of another tenant's object of this route (created by the callback), called with a
   * valid credential of this tenant: it must be a 404, and `unchanged` (when given) must hold
   * afterwards. Required for every route with a path parameter (test/platform/route-coverage).
   */
  foreign?: () => string | Promise<string>;
  unchanged?: () => Promise<void>;
}

/** A valid credential of the harness tenant that the route accepts. */
async function acceptedHeaders(h: Harness, accepts: SecuredRoute['accepts']): Promise<Record<string, string>> {
  if (accepts.apiKey) return h.keyHeaders();
  const userId = await h.createUser(undefined, undefined, accepts.bearer === 'admin' ? 'admin' : 'user');
  return h.bearerHeaders(await h.tokenFor(userId));
}

let openapi: { paths: Record<string, Record<string, Operation>> } | undefined;

/**
 * Every case a tenant-scoped route must pass, named by the route as OpenAPI writes it
 * ('PATCH /users/{id}'): the tenant and credential cases of `securityCases`, another tenant's
 * object (404), and malformed input derived from the route's own schema (400 in the error
 * shape). test/platform/route-coverage.test.ts fails for a route of the app with no such entry.
 */
export function routeCases(h: () => Harness, route: string, spec: RouteCaseSpec): void {
  const [method, template] = route.split(' ') as [Method, string];
  describe(route, () => {
    securityCases(h, { ...spec, method });

    if (spec.foreign) {
      const foreign = spec.foreign;
      it("404 for another tenant's object, and nothing changed", async () => {
        const headers = await acceptedHeaders(h(), spec.accepts);
        const res = await h().inject({ method, url: await foreign(), headers, payload: spec.payload?.() as never });
        expect(res.statusCode).toBe(404);
        expect(res.json()).toMatchObject({ statusCode: 404, code: expect.any(String), message: expect.any(String) });
        await spec.unchanged?.();
      });
    }

    it('400 in the error shape for malformed input derived from the schema', async () => {
      openapi ??= (await openApiDocument(h())) as typeof openapi;
      const operation = openapi!.paths[template]?.[method.toLowerCase()];
      expect(operation, `${route} is not in /openapi.json`).toBeDefined();
      const headers = await acceptedHeaders(h(), spec.accepts);
      for (const bad of malformedRequests(template, operation!, spec.url(), spec.payload?.())) {
        const res = await h().inject({ method, url: bad.url, headers, payload: bad.payload as never });
        expect(res.statusCode, `${route}: ${bad.what}`).toBe(400);
        expect(res.json(), `${route}: ${bad.what}`).toMatchObject({ statusCode: 400, code: expect.any(String), message: expect.any(String) });
      }
    });
  });
}
