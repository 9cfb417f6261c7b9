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

/** Tokens of a plain user and an admin of the harness tenant, made once a harness (remade when its clock moved on). */
const tokensOf = new WeakMap<Harness, { at: number; tokens: Promise<{ user: string; admin: string }> }>();
function tokens(h: Harness): Promise<{ user: string; admin: string }> {
  const at = h.clock.now().getTime();
  const cached = tokensOf.get(h);
  if (cached && Math.abs(at - cached.at) < 60_000) return cached.tokens;
  const made = (async () => ({
    user: await h.tokenFor(await h.createUser()),
    admin: await h.tokenFor(await h.createUser(undefined, undefined, 'admin')),
  }))();
  tokensOf.set(h, { at, tokens: made });
  return made;
}

/**
 * The credential cases of one route that depend on what it accepts: no credential, and the
 * wrong kind of credential or role. The rest of the tenant and credential matrix (no, unknown or
 * malformed tenant; wrong, foreign or revoked key; malformed or foreign bearer) is the guards'
 * and runs once for every declared route: test/platform/guard-matrix.security.test.ts.
 */
export function securityCases(h: () => Harness, route: SecuredRoute): void {
  const call = (headers: Record<string, string>) =>
    h().inject({ method: route.method, url: route.url(), headers, payload: route.payload?.() as never });

  describe(`${route.method} security`, () => {
    it('401 without any credential', async () => {
      expectError(await call({ 'x-tenant-id': h().tenant.tenantId }), 401, 'CREDENTIALS_REQUIRED');
    });
    if (!route.accepts.bearer) {
      it('403 with a user bearer token (API key required)', async () => {
        expectError(await call(h().bearerHeaders((await tokens(h())).admin)), 403, 'FORBIDDEN');
      });
    }
    if (route.accepts.bearer === 'admin') {
      it('403 with a plain user bearer token (admin required)', async () => {
        expectError(await call(h().bearerHeaders((await tokens(h())).user)), 403, 'FORBIDDEN');
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
  const made = await tokens(h);
  return h.bearerHeaders(accepts.bearer === 'admin' ? made.admin : made.user);
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

/**
 * Asserts that `secret` does not appear in `text`. A short numeric code (an email or 2FA code)
 * counts only as a number of its own: six digits turn up inside the hex of request ids and UUIDs
 * (`...4dd091003087` holds 910030) without any code having been logged.
 */
export function expectSecretAbsent(text: string, secret: string): void {
  if (/^\d{4,8}$/.test(secret)) expect(text).not.toMatch(new RegExp(`(?<![0-9A-Za-z])${secret}(?![0-9A-Za-z])`));
  else expect(text).not.toContain(secret);
}
