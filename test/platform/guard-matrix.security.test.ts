import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { declaredTenantRoutes } from '../../src/platform/http/guards.js';
import { createHarness, type Harness, type TestTenant } from '../helpers/harness.js';
import { expectError } from '../helpers/security.js';

/**
 * The tenant and credential matrix, once, against the guards of the real app: for every
 * tenant-scoped route it declares, no tenant, an unknown or malformed tenant, no credential, a
 * wrong, foreign or revoked API key, a malformed bearer and another tenant's token, each
 * answered by the guard in the error shape before any body is read or handler runs. The
 * fixtures (another tenant, its admin's token, a revoked key) are made once; each route's
 * own file keeps the cases that depend on what the route accepts (the wrong kind of credential
 * or role, another tenant's object, malformed input: test/helpers/security.ts).
 */

// About a dozen requests a route from one address: above the per-address net of the tests.
const h: Harness = await createHarness({ rateLimit: { globalMax: 1_000_000 } });
const routes = [...declaredTenantRoutes(h.app)].sort(([a], [b]) => a.localeCompare(b));

let other: TestTenant;
let otherToken: string;
let revokedKey: string;
beforeAll(async () => {
  other = await h.newTenant();
  otherToken = await h.tokenFor(await h.createUser(other, undefined, 'admin'), other);
  const key = await h.container.tenants.createApiKey(h.tenant.tenantId, 'to-revoke');
  await h.container.tenants.revokeApiKey(h.tenant.tenantId, key.keyId);
  revokedKey = key.apiKey;
});
afterAll(async () => h.close());

describe('the route list', () => {
  it('holds every tenant-scoped route, public and protected', () => {
    expect(routes.length).toBeGreaterThan(100);
    expect(routes.some(([, r]) => r.auth === 'public')).toBe(true);
  });
});

for (const [route, requirement] of routes) {
  const [method, template] = route.split(' ') as ['GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', string];
  // The guards answer before the path is matched against a schema: any value stands for a parameter.
  const url = template.replace(/\{[^}]+\}/g, () => randomUUID());
  const call = (headers: Record<string, string>) => h.inject({ method, url, headers });
  const protectedRoute = requirement.auth !== 'public' && !requirement.credentialInHandler;

  describe(route, () => {
    it('401 without x-tenant-id, even with a valid API key', async () => {
      expectError(await call({ 'x-api-key': h.tenant.apiKey }), 401, 'TENANT_REQUIRED');
    });
    it('401 with an unknown tenant', async () => {
      expectError(await call({ 'x-tenant-id': randomUUID(), 'x-api-key': h.tenant.apiKey }), 401, 'TENANT_UNKNOWN');
    });
    it('401 with a malformed tenant id', async () => {
      expectError(await call({ 'x-tenant-id': "x' or 1=1 --", 'x-api-key': h.tenant.apiKey }), 401, 'TENANT_UNKNOWN');
    });
    if (!protectedRoute) return;
    it('401 without any credential', async () => {
      expectError(await call({ 'x-tenant-id': h.tenant.tenantId }), 401, 'CREDENTIALS_REQUIRED');
    });
    it('401 with a wrong API key', async () => {
      const wrong = h.tenant.apiKey.slice(0, -4) + 'AAAA';
      expectError(await call({ 'x-tenant-id': h.tenant.tenantId, 'x-api-key': wrong }), 401, 'API_KEY_INVALID');
      expectError(await call({ 'x-tenant-id': h.tenant.tenantId, 'x-api-key': 'garbage' }), 401, 'API_KEY_INVALID');
    });
    it("401 with another tenant's API key", async () => {
      expectError(await call({ 'x-tenant-id': h.tenant.tenantId, 'x-api-key': other.apiKey }), 401, 'API_KEY_INVALID');
    });
    it('401 with a revoked API key', async () => {
      expectError(await call({ 'x-tenant-id': h.tenant.tenantId, 'x-api-key': revokedKey }), 401, 'API_KEY_INVALID');
    });
    it('401 with a malformed or unknown bearer token', async () => {
      expectError(await call({ 'x-tenant-id': h.tenant.tenantId, authorization: 'Bearer not-a-token' }), 401, 'TOKEN_INVALID');
      expectError(await call({ 'x-tenant-id': h.tenant.tenantId, authorization: 'Basic abc' }), 401, 'TOKEN_INVALID');
    });
    it("401 with a token of another tenant under this tenant's header", async () => {
      expectError(await call(h.bearerHeaders(otherToken)), 401, 'TOKEN_INVALID');
    });
  });
}
