import { eq } from 'drizzle-orm';
import { businessProfiles } from '../../src/modules/entities/table.js';
import { businessProfileASandbox } from '../../src/sandboxes/business-profile-a/table.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { paths } from '../../clients/typescript/src/schema.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { outbox } from '../helpers/outbox.js';
import { configureBusinessProfile, sandboxCall, signedWebhook } from './bp-helpers.js';
import { entityOf, memberWith, TIN } from './fixtures.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness({ listen: true });
});
afterAll(async () => h.close());

type ProfileInput = paths['/entities/{id}/business-profile-a']['post']['requestBody']['content']['application/json'];

const submit = (entityId: string, headers: Record<string, string>, body: ProfileInput = { tin: TIN, people: [{ name: 'Jane Doe', titles: ['CEO'] }], website: 'https://acme.example' }) =>
  h.api(headers).POST('/entities/{id}/business-profile-a', { params: { path: { id: entityId } }, body });

describe('business-profile-a through the sandbox over real HTTP', () => {
  it('submitted -> pending; a second submission 409; the sandbox approves and its signed webhook makes it approved', async () => {
    const { entityId, owner } = await entityOf(h);
    const res = await submit(entityId, owner.headers);
    expect(res.response.status, JSON.stringify(res.error)).toBe(201);
    const profile = res.data!;
    expect(profile).toMatchObject({ entityId, provider: 'business-profile-a', status: 'pending', tasks: [], tin: '*****6789', providerBusinessId: expect.any(String), failure: null });
    expect(JSON.stringify(res.data)).not.toContain('3456789');
    // At rest: sealed in the profile, only the last four at the sandbox.
    const stored = await h.database.db.select().from(businessProfiles).where(eq(businessProfiles.id, profile.id));
    expect(stored[0]!.tinSealed).toEqual(expect.any(String));
    const atRest = JSON.stringify([stored, await h.database.db.select().from(businessProfileASandbox).where(eq(businessProfileASandbox.externalId, profile.id))]);
    expect(atRest).not.toContain('3456789');
    expect(atRest).toContain('6789');

    // The provider holds the business under our profile id.
    const atProvider = await sandboxCall(h, 'GET', `/v1/businesses/${profile.providerBusinessId}`);
    expect(atProvider.status).toBe(200);
    expect(atProvider.json).toMatchObject({ object: 'business', external_id: profile.id, name: 'Acme Holdings LLC', status: 'pending', people: [{ name: 'Jane Doe', titles: [{ title: 'CEO' }] }] });
    expect((atProvider.json.addresses as unknown[])[0]).toMatchObject({ address_line1: '1 Main Street', city: 'Wilmington', state: 'DE', postal_code: '19801', country: 'US' });

    const again = await submit(entityId, owner.headers);
    expect(again.response.status).toBe(409);
    expect(again.error!.code).toBe('BUSINESS_PROFILE_EXISTS');

    h.clock.advance(60_000);
    const review = await sandboxCall(h, 'POST', `/v1/businesses/${profile.providerBusinessId}/review`, { status: 'approved' });
    expect(review.status).toBe(200);
    expect(review.json.webhook_delivery).toMatch(/^business\.updated .*: HTTP 200$/);

    const now = await h.api(owner.headers).GET('/entities/{id}/business-profile-a', { params: { path: { id: entityId } } });
    expect(now.response.status).toBe(200);
    expect(now.data).toMatchObject({ id: profile.id, status: 'approved', tin: '*****6789' });
    expect(now.data!.tasks.map((t) => `${t.key}:${t.status}`)).toEqual([
      'name:success',
      'tin:success',
      'address_verification:success',
      'watchlist:success',
    ]);
    const updated = (await outbox(h, undefined, 'entity.business_profile_updated')).filter((e) => e.payload.profileId === profile.id);
    expect(updated.map((e) => e.payload.status)).toEqual(['approved']);
    expect((await outbox(h, undefined, 'entity.business_profile_submitted')).some((e) => e.payload.profileId === profile.id)).toBe(true);
    expect(h.logs.text()).not.toContain('3456789');
    // Approved is final: no new submission.
    expect((await submit(entityId, owner.headers)).response.status).toBe(409);
  });

  it('in review then rejected, with the failed task; a rejected entity may submit again', async () => {
    const { entityId, owner } = await entityOf(h);
    const profile = (await submit(entityId, owner.headers, { tin: '987654321' })).data!;
    h.clock.advance(1000);
    await sandboxCall(h, 'POST', `/v1/businesses/${profile.providerBusinessId}/review`, { status: 'in_review' });
    const inReview = await h.api(owner.headers).GET('/entities/{id}/business-profile-a', { params: { path: { id: entityId } } });
    expect(inReview.data).toMatchObject({ status: 'in_review', tin: '*****4321' });
    expect(inReview.data!.tasks.find((t) => t.key === 'tin')!.status).toBe('pending');
    h.clock.advance(1000);
    await sandboxCall(h, 'POST', `/v1/businesses/${profile.providerBusinessId}/review`, { status: 'rejected' });
    const rejected = await h.api(owner.headers).GET('/entities/{id}/business-profile-a', { params: { path: { id: entityId } } });
    expect(rejected.data!.status).toBe('rejected');
    expect(rejected.data!.tasks.find((t) => t.key === 'tin')).toMatchObject({ status: 'failure', message: expect.stringContaining('does not match') });

    const second = await submit(entityId, owner.headers, { tin: '98-7654320' });
    expect(second.response.status, JSON.stringify(second.error)).toBe(201);
    expect(second.data).toMatchObject({ status: 'pending', tin: '*****4320' });
    expect(second.data!.id).not.toBe(profile.id);
    const current = await h.api(owner.headers).GET('/entities/{id}/business-profile-a', { params: { path: { id: entityId } } });
    expect(current.data!.id).toBe(second.data!.id);
  });

  it('a replayed webhook and an older state change nothing; a forged one is 401', async () => {
    const { entityId, owner } = await entityOf(h);
    const profile = (await submit(entityId, owner.headers)).data!;
    const business = (await sandboxCall(h, 'GET', `/v1/businesses/${profile.providerBusinessId}`)).json;
    const later = new Date(h.clock.now().getTime() + 10_000).toISOString();
    const approved = await signedWebhook(h, { ...business, status: 'approved', updated_at: later }, { eventId: `evt-${profile.id}` });
    const send = (w: { raw: string; signature: string; url: string }) =>
      h.inject({ method: 'POST', url: w.url, headers: { 'content-type': 'application/json', 'x-middesk-signature-256': w.signature }, payload: w.raw });
    expect((await send(approved)).json()).toEqual({ received: true, applied: true });
    expect((await send(approved)).json()).toEqual({ received: true, applied: false });
    const older = await signedWebhook(h, { ...business, status: 'rejected' });
    expect((await send(older)).json()).toEqual({ received: true, applied: false });
    const forged = await signedWebhook(h, { ...business, status: 'rejected', updated_at: new Date(h.clock.now().getTime() + 20_000).toISOString() }, { secret: 'not-the-secret-at-all' });
    const res = await send(forged);
    expect(res.statusCode).toBe(401);
    expect(res.json()).toMatchObject({ statusCode: 401, code: 'WEBHOOK_SIGNATURE_INVALID' });
    const now = await h.api(owner.headers).GET('/entities/{id}/business-profile-a', { params: { path: { id: entityId } } });
    expect(now.data!.status).toBe('approved');
    expect((await outbox(h, undefined, 'entity.business_profile_updated')).filter((e) => e.payload.profileId === profile.id)).toHaveLength(1);
  });

  it('a member with manage_entity submits; view reads the profile', async () => {
    const { entityId, owner } = await entityOf(h);
    const manager = await memberWith(h, entityId, owner.headers, ['manage_entity']);
    const viewer = await memberWith(h, entityId, owner.headers, ['view']);
    expect((await submit(entityId, manager.headers)).response.status).toBe(201);
    const read = await h.api(viewer.headers).GET('/entities/{id}/business-profile-a', { params: { path: { id: entityId } } });
    expect(read.data!.status).toBe('pending');
  });

  it('a provider that cannot be reached: 503, the profile failed, and the entity may submit again', async () => {
    const other = await h.newTenant();
    const { entityId, owner } = await entityOf(h, other);
    await configureBusinessProfile(h, other.tenantId, { baseUrl: 'http://127.0.0.1:9', apiKey: 'sk_live_unreachable', webhookSecret: 'x'.repeat(32) });
    const res = await submit(entityId, owner.headers);
    expect(res.response.status).toBe(503);
    expect(res.error).toMatchObject({ statusCode: 503, code: 'PROVIDER_UNAVAILABLE' });
    expect(res.response.headers.get('retry-after')).toBe('5');
    const failed = await h.api(owner.headers).GET('/entities/{id}/business-profile-a', { params: { path: { id: entityId } } });
    expect(failed.data).toMatchObject({ status: 'failed', failure: expect.stringContaining('business-profile-a') });
    expect(h.logs.text()).not.toContain('sk_live_unreachable');
    await configureBusinessProfile(h, other.tenantId, null);
    const again = await submit(entityId, owner.headers);
    expect(again.response.status, JSON.stringify(again.error)).toBe(201);
  });
});

describe('the sandbox review page', () => {
  it('shows the business and its buttons decide the review, sending the webhook', async () => {
    const { entityId, owner } = await entityOf(h);
    const profile = (await submit(entityId, owner.headers)).data!;
    const pageUrl = `${h.baseUrl}/sandbox/business-profile-a/businesses/${profile.providerBusinessId}`;
    const page = await fetch(pageUrl);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('Acme Holdings LLC');
    expect(html).toContain('<strong id="status">pending</strong>');
    expect(html).toContain('value="rejected"');
    h.clock.advance(1000);
    const decided = await fetch(pageUrl, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'status=rejected' });
    expect(decided.status).toBe(200);
    expect(await decided.text()).toMatch(/id="delivery">Webhook: business\.updated .*HTTP 200/);
    const now = await h.api(owner.headers).GET('/entities/{id}/business-profile-a', { params: { path: { id: entityId } } });
    expect(now.data!.status).toBe('rejected');
    expect((await fetch(pageUrl, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'status=nope' })).status).toBe(422);
    expect((await fetch(`${h.baseUrl}/sandbox/business-profile-a/businesses/00000000-0000-4000-8000-000000000000`)).status).toBe(404);
  });

});

describe('the review queue of business profiles', () => {
  it("GET /business-profiles/pending: the tenant's profiles awaiting the provider, oldest first, for an admin or the key; a decided one leaves it", async () => {
    const tenant = await h.newTenant();
    const first = await entityOf(h, tenant);
    const second = await entityOf(h, tenant);
    const a = (await submit(first.entityId, first.owner.headers)).data!;
    h.clock.advance(1_000);
    const b = (await submit(second.entityId, second.owner.headers)).data!;
    expect([a.status, b.status]).toEqual(['pending', 'pending']);
    const admin = await h.createUser(tenant, undefined, 'admin');
    const adminHeaders = h.bearerHeaders(await h.tokenFor(admin, tenant, 'admin'), tenant);
    for (const headers of [adminHeaders, h.keyHeaders(tenant)]) {
      const res = await h.api(headers).GET('/business-profiles/pending');
      expect(res.response.status, JSON.stringify(res.error)).toBe(200);
      expect(res.data).toMatchObject({ total: 2, data: [{ id: a.id, entityId: first.entityId, status: 'pending', tin: '*****6789' }, { id: b.id, entityId: second.entityId }] });
      expect(JSON.stringify(res.data)).not.toContain('3456789');
    }
    // The provider decides the first: it leaves the queue.
    h.clock.advance(60_000);
    const review = await sandboxCall(h, 'POST', `/v1/businesses/${a.providerBusinessId}/review`, { status: 'approved' }, tenant);
    expect(review.status).toBe(200);
    const after = await h.api(adminHeaders).GET('/business-profiles/pending', { params: { query: { limit: 10 } } });
    expect(after.data).toMatchObject({ total: 1, data: [{ id: b.id }] });
    // Another tenant's queue holds neither.
    const other = await h.api(h.keyHeaders()).GET('/business-profiles/pending');
    expect(other.data!.data.map((p) => p.id)).not.toContain(b.id);
  });
});
