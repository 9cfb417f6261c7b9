import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKeys } from '../../src/platform/tenancy/table.js';
import { keyAdmits } from '../../src/platform/http/key-scopes.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { auditEvents } from '../helpers/read.js';
import { expectError, routeCases } from '../helpers/security.js';

let h: Harness;
let spareKeyId: string;
beforeAll(async () => {
  h = await createHarness();
  spareKeyId = (await h.container.tenants.createApiKey(h.tenant.tenantId, 'spare')).keyId;
});
afterAll(async () => h.close());

const keyHeaders = (apiKey: string) => ({ 'x-tenant-id': h.tenant.tenantId, 'x-api-key': apiKey });
const newKey = (scopes?: string[], expiresAt?: Date) => h.container.tenants.issueApiKey(h.tenant.tenantId, { scopes, expiresAt });
async function foreignKey(): Promise<string> {
  const other = await h.newTenant();
  return other.keyId;
}
async function stillLive(tenantId: string, keyId: string): Promise<void> {
  const { and, eq } = await import('drizzle-orm');
  const [row] = await h.database.db.select().from(apiKeys).where(and(eq(apiKeys.tenantId, tenantId), eq(apiKeys.id, keyId)));
  expect(row?.revokedAt).toBeNull();
  expect(row?.expiresAt).toBeNull();
}

routeCases(() => h, 'GET /api-keys', { url: () => '/api-keys', accepts: { apiKey: true, bearer: 'admin' } });
routeCases(() => h, 'POST /api-keys', { url: () => '/api-keys', payload: () => ({ name: 'ci', scopes: ['kyc'] }), accepts: { apiKey: true, bearer: 'admin' } });
let foreignRevoke: { tenantId: string; keyId: string } | undefined;
routeCases(() => h, 'DELETE /api-keys/{keyId}', {
  url: () => '/api-keys/00000000-0000-4000-8000-000000000000',
  accepts: { apiKey: true, bearer: 'admin' },
  foreign: async () => {
    const other = await h.newTenant();
    foreignRevoke = { tenantId: other.tenantId, keyId: other.keyId };
    return `/api-keys/${other.keyId}`;
  },
  unchanged: async () => stillLive(foreignRevoke!.tenantId, foreignRevoke!.keyId),
});
routeCases(() => h, 'POST /api-keys/{keyId}/rotate', {
  url: () => `/api-keys/${spareKeyId}/rotate`,
  payload: () => ({ overlapSeconds: 60 }),
  accepts: { apiKey: true, bearer: 'admin' },
  foreign: async () => `/api-keys/${await foreignKey()}/rotate`,
});

describe('API keys over the API', () => {
  it('creates a key (secret once), lists it without secrets, and the key works', async () => {
    const res = await h.inject({ method: 'POST', url: '/api-keys', headers: h.keyHeaders(), payload: { name: 'back office', scopes: ['users', 'kyc'] } });
    expect(res.statusCode).toBe(201);
    const created = res.json();
    expect(created).toMatchObject({ name: 'back office', scopes: ['users', 'kyc'], expiresAt: null, lastUsedAt: null, prefix: `bst_${created.id.replace(/-/g, '').slice(0, 8)}` });
    expect(created.apiKey.startsWith(created.prefix)).toBe(true);
    const listed = await h.inject({ method: 'GET', url: '/api-keys', headers: h.keyHeaders() });
    expect(listed.statusCode).toBe(200);
    expect(listed.body).not.toContain(created.apiKey.slice(-20));
    const row = listed.json().data.find((k: { id: string }) => k.id === created.id);
    expect(row).toMatchObject({ name: 'back office', scopes: ['users', 'kyc'] });
    expect(listed.json().data.find((k: { id: string }) => k.id === h.tenant.keyId)).toMatchObject({ scopes: ['all'] });
    expect((await h.inject({ method: 'GET', url: '/users', headers: keyHeaders(created.apiKey) })).statusCode).toBe(200);
    const events = await auditEvents(h, { type: 'api_key.created' });
    expect(events.data[0]).toMatchObject({ actorType: 'api_key', actorId: h.tenant.keyId, details: { keyId: created.id } });
  });

  it('enforces scopes on every API-key route: area by tag, read-only refused on writes (403)', async () => {
    const kyc = await newKey(['kyc']);
    expectError(await h.inject({ method: 'GET', url: '/users', headers: keyHeaders(kyc.apiKey) }), 403, 'FORBIDDEN');
    expect((await h.inject({ method: 'GET', url: '/kyc', headers: keyHeaders(kyc.apiKey) })).statusCode).not.toBe(403);
    const readOnly = await newKey(['read-only']);
    expect((await h.inject({ method: 'GET', url: '/users', headers: keyHeaders(readOnly.apiKey) })).statusCode).toBe(200);
    expectError(await h.inject({ method: 'POST', url: '/users', headers: keyHeaders(readOnly.apiKey), payload: { email: 'ro@example.com' } }), 403, 'FORBIDDEN');
    expectError(await h.inject({ method: 'POST', url: '/api-keys', headers: keyHeaders(readOnly.apiKey), payload: {} }), 403, 'FORBIDDEN');
    expect((await h.inject({ method: 'GET', url: '/api-keys', headers: keyHeaders(readOnly.apiKey) })).statusCode).toBe(200);
    // Key management is in no area: a users key may not reach it (no escalation to an all key).
    const users = await newKey(['users']);
    expectError(await h.inject({ method: 'POST', url: '/api-keys', headers: keyHeaders(users.apiKey), payload: { scopes: ['all'] } }), 403, 'FORBIDDEN');
    expectError(await h.inject({ method: 'GET', url: '/audit-events', headers: keyHeaders(users.apiKey) }), 403, 'FORBIDDEN');
    const userId = await h.createUser();
    expect((await h.inject({ method: 'POST', url: `/auth/users/${userId}/token`, headers: keyHeaders(users.apiKey) })).statusCode).toBe(201);
    expect(keyAdmits(['read-only', 'documents'], 'documents', 'GET')).toBe(true);
    expect(keyAdmits(['read-only', 'documents'], 'kyc', 'GET')).toBe(false);
    expect(keyAdmits(null, 'all', 'DELETE')).toBe(true);
  });

  it('refuses malformed scopes and a past expiry; an expired key is refused', async () => {
    expect((await h.inject({ method: 'POST', url: '/api-keys', headers: h.keyHeaders(), payload: { scopes: ['root'] } })).statusCode).toBe(400);
    expectError(await h.inject({ method: 'POST', url: '/api-keys', headers: h.keyHeaders(), payload: { scopes: ['all', 'kyc'] } }), 400, 'API_KEY_SCOPES_INVALID');
    const past = new Date(h.clock.now().getTime() - 1000).toISOString();
    expectError(await h.inject({ method: 'POST', url: '/api-keys', headers: h.keyHeaders(), payload: { expiresAt: past } }), 400, 'API_KEY_EXPIRY_INVALID');
    const soon = await newKey(undefined, new Date(h.clock.now().getTime() + 60_000));
    expect((await h.inject({ method: 'GET', url: '/users', headers: keyHeaders(soon.apiKey) })).statusCode).toBe(200);
    h.clock.advance(60_001);
    expectError(await h.inject({ method: 'GET', url: '/users', headers: keyHeaders(soon.apiKey) }), 401, 'API_KEY_INVALID');
  });

  it('rotates: a new key with the same name and scopes; the old one valid for the overlap, then refused', async () => {
    const old = await h.container.tenants.issueApiKey(h.tenant.tenantId, { name: 'rotating', scopes: ['users'] });
    const admin = await h.createUser(undefined, undefined, 'admin');
    const res = await h.inject({ method: 'POST', url: `/api-keys/${old.id}/rotate`, headers: h.bearerHeaders(await h.tokenFor(admin)), payload: { overlapSeconds: 120 } });
    expect(res.statusCode).toBe(201);
    const rotated = res.json();
    expect(rotated).toMatchObject({ name: 'rotating', scopes: ['users'], rotatedFrom: old.id });
    expect(new Date(rotated.previousKeyExpiresAt).getTime()).toBe(h.clock.now().getTime() + 120_000);
    expect((await h.inject({ method: 'GET', url: '/users', headers: keyHeaders(old.apiKey) })).statusCode).toBe(200);
    expect((await h.inject({ method: 'GET', url: '/users', headers: keyHeaders(rotated.apiKey) })).statusCode).toBe(200);
    h.clock.advance(120_001);
    expectError(await h.inject({ method: 'GET', url: '/users', headers: keyHeaders(old.apiKey) }), 401, 'API_KEY_INVALID');
    expect((await h.inject({ method: 'GET', url: '/users', headers: keyHeaders(rotated.apiKey) })).statusCode).toBe(200);
    // An expired key cannot be rotated again.
    expectError(await h.inject({ method: 'POST', url: `/api-keys/${old.id}/rotate`, headers: h.keyHeaders(), payload: {} }), 404, 'API_KEY_NOT_FOUND');
    const events = await auditEvents(h, { type: 'api_key.rotated' });
    expect(events.data[0]).toMatchObject({ actorType: 'user', actorId: admin, details: { keyId: old.id, newKeyId: rotated.id } });
  });

  it('revokes: the key is refused at once; revoking again is 404', async () => {
    const key = await newKey();
    expect((await h.inject({ method: 'DELETE', url: `/api-keys/${key.id}`, headers: h.keyHeaders() })).statusCode).toBe(204);
    expectError(await h.inject({ method: 'GET', url: '/users', headers: keyHeaders(key.apiKey) }), 401, 'API_KEY_INVALID');
    expectError(await h.inject({ method: 'DELETE', url: `/api-keys/${key.id}`, headers: h.keyHeaders() }), 404, 'API_KEY_NOT_FOUND');
    const listed = (await h.inject({ method: 'GET', url: '/api-keys', headers: h.keyHeaders() })).json().data;
    expect(listed.some((k: { id: string }) => k.id === key.id)).toBe(false);
  });

  it('writes last use at most once a minute per key', async () => {
    const key = await newKey();
    const lastUsed = async () => (await h.container.tenants.listApiKeys(h.tenant.tenantId)).find((k) => k.id === key.id)!.lastUsedAt;
    await h.inject({ method: 'GET', url: '/users', headers: keyHeaders(key.apiKey) });
    const first = await lastUsed();
    expect(first).toBe(h.clock.now().toISOString());
    h.clock.advance(30_000);
    await h.inject({ method: 'GET', url: '/users', headers: keyHeaders(key.apiKey) });
    expect(await lastUsed()).toBe(first);
    h.clock.advance(30_000);
    await h.inject({ method: 'GET', url: '/users', headers: keyHeaders(key.apiKey) });
    expect(await lastUsed()).toBe(h.clock.now().toISOString());
  });
});
