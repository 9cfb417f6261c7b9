import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { expectError } from '../helpers/security.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h.close());

describe('identity errors', () => {
  it('404 for a path that is not a leaf (including KYC fields before approval)', async () => {
    const userId = await h.createUser();
    const headers = h.bearerHeaders(await h.tokenFor(userId));
    expectError(await h.inject({ method: 'GET', url: '/kyc/identity/proof?path=kyc.nope', headers }), 404, 'IDENTITY_PATH_NOT_FOUND');
    await h.inject({ method: 'POST', url: '/kyc/kyc', headers: h.keyHeaders(), payload: { userId, provider: 'manual', country: 'FR' } });
    expect((await h.inject({ method: 'GET', url: '/kyc/identity/proof?path=kyc.status', headers })).json().value).toBe('created');
    expectError(await h.inject({ method: 'GET', url: '/kyc/identity/proof?path=kyc.country', headers }), 404, 'IDENTITY_PATH_NOT_FOUND');
  });

  it('400 without a path, with an empty or unknown query field, or a malformed userId', async () => {
    const headers = h.bearerHeaders(await h.tokenFor(await h.createUser()));
    for (const url of ['/kyc/identity/proof', '/kyc/identity/proof?path=', '/kyc/identity/root?foo=1', '/kyc/identity/root?userId=abc']) {
      expectError(await h.inject({ method: 'GET', url, headers }), 400, 'VALIDATION_FAILED');
    }
  });

  it('400 with an API key that names no user', async () => {
    expectError(await h.inject({ method: 'GET', url: '/kyc/identity/root', headers: h.keyHeaders() }), 400, 'USER_ID_REQUIRED');
  });

  it("404 for an unknown user, another tenant's user, or a plain user naming someone else", async () => {
    const other = await h.newTenant();
    const foreign = await h.createUser(other);
    expectError(await h.inject({ method: 'GET', url: `/kyc/identity/root?userId=${randomUUID()}`, headers: h.keyHeaders() }), 404, 'USER_NOT_FOUND');
    expectError(await h.inject({ method: 'GET', url: `/kyc/identity/root?userId=${foreign}`, headers: h.keyHeaders() }), 404, 'USER_NOT_FOUND');
    const victim = await h.createUser();
    const intruder = h.bearerHeaders(await h.tokenFor(await h.createUser()));
    expectError(await h.inject({ method: 'GET', url: `/kyc/identity/root?userId=${victim}`, headers: intruder }), 404, 'USER_NOT_FOUND');
    expectError(await h.inject({ method: 'GET', url: `/kyc/identity/proof?path=user.id&userId=${victim}`, headers: intruder }), 404, 'USER_NOT_FOUND');
  });
});
