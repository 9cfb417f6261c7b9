import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBusinessProfileAClient } from '../../src/providers/business-profile/business-profile-a/http.js';
import { ProviderError } from '../../src/platform/providers/errors.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { expectError } from '../helpers/security.js';
import { businessProfileSettings, configureBusinessProfile, sandboxCall, signedWebhook } from './bp-helpers.js';
import { entityOf, memberWith, TIN } from './fixtures.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness({ listen: true });
});
afterAll(async () => h.close());

const send = (w: { raw: string; signature: string; url: string }, headers: Record<string, string> = {}) =>
  h.inject({ method: 'POST', url: w.url, headers: { 'content-type': 'application/json', 'x-middesk-signature-256': w.signature, ...headers }, payload: w.raw });

describe('POST/GET /entities/{id}/business-profile-a errors', () => {
  it('400 for a malformed TIN or body; 404 before any submission; 403 without manage_entity', async () => {
    const { entityId, owner } = await entityOf(h);
    for (const payload of [{}, { tin: '12345678' }, { tin: '12-345-6789' }, { tin: TIN, extra: 1 }, { tin: TIN, website: 'ftp://x' }, { tin: TIN, people: [{}] }]) {
      expectError(await h.inject({ method: 'POST', url: `/entities/${entityId}/business-profile-a`, headers: owner.headers, payload }), 400, 'VALIDATION_FAILED');
    }
    expectError(await h.inject({ method: 'GET', url: `/entities/${entityId}/business-profile-a`, headers: owner.headers }), 404, 'BUSINESS_PROFILE_NOT_FOUND');
    const viewer = await memberWith(h, entityId, owner.headers, ['view', 'manage_users']);
    expectError(await h.inject({ method: 'POST', url: `/entities/${entityId}/business-profile-a`, headers: viewer.headers, payload: { tin: TIN } }), 403, 'ENTITY_PERMISSION_REQUIRED');
    expectError(await h.inject({ method: 'POST', url: `/entities/${randomUUID()}/business-profile-a`, headers: owner.headers, payload: { tin: TIN } }), 404, 'ENTITY_NOT_FOUND');
  });
});

describe('the webhook route', () => {
  it('401 for an unknown or malformed tenant, a missing or wrong signature; 400 for a signed non-event', async () => {
    const { entityId, owner } = await entityOf(h);
    const profile = (await h.inject({ method: 'POST', url: `/entities/${entityId}/business-profile-a`, headers: owner.headers, payload: { tin: TIN } })).json();
    const business = (await sandboxCall(h, 'GET', `/v1/businesses/${profile.providerBusinessId}`)).json;
    const update = { ...business, status: 'approved', updated_at: new Date(h.clock.now().getTime() + 5000).toISOString() };
    const good = await signedWebhook(h, update);
    const unknownTenant = { ...good, url: `/callbacks/business-profile-a/${randomUUID()}` };
    expectError(await send(unknownTenant), 401, 'WEBHOOK_SIGNATURE_INVALID');
    expectError(await send({ ...good, url: "/callbacks/business-profile-a/x'%20or%201=1" }), 401, 'WEBHOOK_SIGNATURE_INVALID');
    expectError(await send({ ...good, signature: '' }), 401, 'WEBHOOK_SIGNATURE_INVALID');
    expectError(await send({ ...good, signature: good.signature.replace(/^./, (c) => (c === '0' ? '1' : '0')) }), 401, 'WEBHOOK_SIGNATURE_INVALID');
    const noHeader = await h.inject({ method: 'POST', url: good.url, headers: { 'content-type': 'application/json' }, payload: good.raw });
    expectError(noHeader, 401, 'WEBHOOK_SIGNATURE_INVALID');
    // Another tenant's secret does not sign for this tenant.
    const other = await h.newTenant();
    const otherSecret = (await businessProfileSettings(h, other.tenantId)).webhookSecret;
    expectError(await send(await signedWebhook(h, update, { secret: otherSecret })), 401, 'WEBHOOK_SIGNATURE_INVALID');

    const { webhookSecret: secret } = await businessProfileSettings(h, h.tenant.tenantId);
    const { signBody } = await import('../../src/providers/business-profile/business-profile-a/protocol.js');
    for (const raw of ['not json', '{"object":"event"}', JSON.stringify({ object: 'event', id: 'e1', type: 'business.updated', data: { object: { id: 'x' } } })]) {
      expectError(await send({ raw, signature: signBody(raw, secret), url: good.url }), 400, 'WEBHOOK_MALFORMED');
    }
    const still = await h.inject({ method: 'GET', url: `/entities/${entityId}/business-profile-a`, headers: owner.headers });
    expect(still.json().status).toBe('pending');
    // The genuine one still applies.
    expect((await send(good)).json()).toEqual({ received: true, applied: true });
  });

  it('a signed event for a business the tenant does not know is acknowledged and changes nothing', async () => {
    const w = await signedWebhook(h, { object: 'business', id: randomUUID(), external_id: randomUUID(), status: 'approved', updated_at: new Date().toISOString(), review: { tasks: [] } });
    const res = await send(w);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ received: true, applied: false });
  });
});

describe('the sandbox speaks the provider protocol and checks credentials', () => {
  it('401 for an unknown API key; 422 for a bad body; 404 for an unknown business', async () => {
    const base = `${h.baseUrl}/sandbox/business-profile-a`;
    const noKey = await fetch(`${base}/v1/businesses`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(noKey.status).toBe(401);
    const wrong = await fetch(`${base}/v1/businesses`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer sk_sandbox_wrong' }, body: '{}' });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toEqual({ errors: [{ message: expect.stringContaining('Unauthorized') }] });
    const bad = await sandboxCall(h, 'POST', '/v1/businesses', { name: 'X', tin: { tin: '12' }, addresses: [] });
    expect(bad.status).toBe(422);
    expect((await sandboxCall(h, 'GET', `/v1/businesses/${randomUUID()}`)).status).toBe(404);
    expect((await sandboxCall(h, 'POST', `/v1/businesses/${randomUUID()}/review`, { status: 'approved' })).status).toBe(404);
    expect((await sandboxCall(h, 'POST', `/v1/businesses/${randomUUID()}/review`, { status: 'done' })).status).toBe(422);
  });

  it('a tenant pointed at a real provider is not served by the sandbox (its key no longer opens an account)', async () => {
    const other = await h.newTenant();
    const { apiKey } = await businessProfileSettings(h, other.tenantId);
    await configureBusinessProfile(h, other.tenantId, { baseUrl: 'https://api.provider.example', apiKey: 'sk_live_x', webhookSecret: 'y'.repeat(32) });
    const res = await fetch(`${h.baseUrl}/sandbox/business-profile-a/v1/businesses/${randomUUID()}`, { headers: { authorization: `Bearer ${apiKey}` } });
    expect(res.status).toBe(401);
    expect(await businessProfileSettings(h, other.tenantId)).toMatchObject({ baseUrl: 'https://api.provider.example', apiKey: 'sk_live_x' });
  });

  it('the HTTP adapter against the sandbox: create, read, and a rejected key', async () => {
    const endpoint = await businessProfileSettings(h, h.tenant.tenantId);
    const adapter = createBusinessProfileAClient(endpoint);
    const externalId = randomUUID();
    const created = await adapter.createBusiness({
      externalId,
      name: 'Adapter Co',
      tin: '111111111',
      addresses: [{ addressLine1: '2 Side St', city: 'Austin', state: 'TX', country: 'US' }],
      people: [],
    });
    expect(created).toMatchObject({ externalId, status: 'pending', tasks: [] });
    const again = await adapter.createBusiness({ externalId, name: 'Adapter Co', tin: '111111111', addresses: [{ addressLine1: '2 Side St', city: 'Austin', country: 'US' }], people: [] });
    expect(again.id).toBe(created.id);
    expect(await adapter.getBusiness(created.id)).toMatchObject({ id: created.id, externalId });
    await expect(createBusinessProfileAClient({ ...endpoint, apiKey: 'sk_sandbox_nope' }).getBusiness(created.id)).rejects.toMatchObject({ reason: 'unauthorized' });
    await expect(createBusinessProfileAClient({ ...endpoint, baseUrl: 'http://127.0.0.1:9' }).getBusiness(created.id)).rejects.toBeInstanceOf(ProviderError);
    await expect(createBusinessProfileAClient({ ...endpoint, baseUrl: 'http://127.0.0.1:9' }).getBusiness(created.id)).rejects.toMatchObject({ reason: 'unreachable' });
    await expect(adapter.getBusiness(randomUUID())).rejects.toMatchObject({ reason: 'not_found' });
  });
});
