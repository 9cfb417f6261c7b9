import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { startSession } from '../helpers/kyc.js';
import { readKyc } from '../helpers/read.js';

/** Requests shaped exactly as the spec shows them: only the path, or only the named fields. */
let h: Harness;
beforeAll(async () => {
  h = await createHarness({ listen: true });
});
afterAll(async () => h.close());

const attempt = (kycId: string) => readKyc(h, kycId);

describe('KYC review routes take only the path', () => {
  for (const [action, status] of [
    ['approve', 'approved'],
    ['reject', 'declined'],
    ['request-resubmission', 'resubmission_requested'],
  ] as const) {
    it(`PUT /kyc/${action}/{kycId} with no body at all: 200, status ${status}`, async () => {
      const { kycId } = await startSession(h, await h.createUser());
      // No content-type and no body, as a client following the spec sends it over real HTTP.
      const res = await fetch(`${h.baseUrl}/kyc/${action}/${kycId}`, { method: 'PUT', headers: h.keyHeaders() });
      expect(res.status, await res.clone().text()).toBe(200);
      expect(await res.json()).toMatchObject({ status });
      expect((await attempt(kycId)).reason).toBeNull();
    });
  }

  it('an empty JSON object is the same; a reason, when given, is stored', async () => {
    const { kycId } = await startSession(h, await h.createUser());
    const api = h.api(h.keyHeaders());
    const res = await api.PUT('/kyc/reject/{kycId}', { params: { path: { kycId } }, body: {} });
    expect(res.response.status, JSON.stringify(res.error)).toBe(200);
    const other = await startSession(h, await h.createUser());
    const withReason = await api.PUT('/kyc/reject/{kycId}', { params: { path: { kycId: other.kycId } }, body: { reason: 'expired document' } });
    expect(withReason.response.status).toBe(200);
    expect(await attempt(other.kycId)).toMatchObject({ status: 'declined', reason: 'expired document' });
  });
});

describe('POST /accreditations/{id}/decision takes only `decision`', () => {
  it('201 without a reason; the reason is null', async () => {
    const userId = await h.createUser();
    const api = h.api(h.keyHeaders());
    const claim = await api.POST('/accreditations', { body: { type: 'income', userId } });
    expect(claim.response.status).toBe(201);
    const res = await api.POST('/accreditations/{id}/decision', { params: { path: { id: claim.data!.id } }, body: { decision: 'rejected' } });
    expect(res.response.status, JSON.stringify(res.error)).toBe(201);
    expect(res.data).toMatchObject({ status: 'rejected', reason: null });
  });
});

describe('operations the spec shows without a body accept none', () => {
  it('POST /kyc/idv-b/regular-challenge, POST /auth/users/{userId}/token and POST /auth/logout', async () => {
    const userId = await h.createUser();
    const token = await h.tokenFor(userId);
    const challenge = await fetch(`${h.baseUrl}/kyc/idv-b/regular-challenge`, { method: 'POST', headers: h.bearerHeaders(token) });
    expect(challenge.status).toBe(201);
    const minted = await fetch(`${h.baseUrl}/auth/users/${userId}/token`, { method: 'POST', headers: h.keyHeaders() });
    expect(minted.status).toBe(201);
    const logout = await fetch(`${h.baseUrl}/auth/logout`, { method: 'POST', headers: h.bearerHeaders(token) });
    expect(logout.status).toBe(201);
  });
});
