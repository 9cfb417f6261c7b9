import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, usingPostgres, type Harness } from '../helpers/harness.js';
import { expectError } from '../helpers/security.js';
import { countUsers, readUser } from '../helpers/read.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h.close());

describe('POST /users errors', () => {
  it('409 when the email exists in the tenant, compared case-insensitively after trimming', async () => {
    await h.createUser(undefined, 'dup@example.com');
    const res = await h.inject({ method: 'POST', url: '/users', headers: h.keyHeaders(), payload: { email: '  DUP@example.com' } });
    expectError(res, 409, 'USER_EMAIL_TAKEN');
  });

  it('400 naming every bad field, and no row left behind', async () => {
    const t = await h.newTenant();
    const res = await h.inject({
      method: 'POST',
      url: '/users',
      headers: h.keyHeaders(t),
      payload: { email: 'not-an-email', fullName: '', password: 'x', role: 'admin' },
    });
    expectError(res, 400, 'VALIDATION_FAILED');
    const message: string = res.json().message;
    expect(message).toContain('body.email');
    expect(message).toContain('body.fullName');
    expect(message).toContain('body.password is not allowed');
    expect(message).toContain('body.role is not allowed');
    expect(await countUsers(h, t)).toBe(0);
  });

  it('400 when the email is missing', async () => {
    expectError(await h.inject({ method: 'POST', url: '/users', headers: h.keyHeaders(), payload: {} }), 400, 'VALIDATION_FAILED');
  });

  it('400 on malformed JSON and 413 on an oversized body', async () => {
    const bad = await h.inject({
      method: 'POST',
      url: '/users',
      headers: { ...h.keyHeaders(), 'content-type': 'application/json' },
      payload: '{"email": ',
    });
    expectError(bad, 400, 'MALFORMED_JSON');
    const big = await h.inject({
      method: 'POST',
      url: '/users',
      headers: { ...h.keyHeaders(), 'content-type': 'application/json' },
      payload: JSON.stringify({ email: 'a@b.co', fullName: 'x'.repeat(2 * 1024 * 1024) }),
    });
    expectError(big, 413, 'BODY_TOO_LARGE');
  });

  it.runIf(usingPostgres)('20 parallel POSTs of one email: one 201 and nineteen 409, never a 500', async () => {
    const email = `race-${randomUUID()}@example.com`;
    const results = await Promise.all(
      Array.from({ length: 20 }, () => h.inject({ method: 'POST', url: '/users', headers: h.keyHeaders(), payload: { email } })),
    );
    const statuses = results.map((r) => r.statusCode).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(19);
  });
});

describe('PATCH /users/{id} errors', () => {
  it('409 when the phone is linked to another account', async () => {
    const a = await h.createUser();
    const b = await h.createUser();
    await h.inject({ method: 'PATCH', url: `/users/${a}`, headers: h.keyHeaders(), payload: { phone: '+14155550100' } });
    const res = await h.inject({ method: 'PATCH', url: `/users/${b}`, headers: h.keyHeaders(), payload: { phone: '+1 415 555 0100' } });
    expectError(res, 409, 'USER_PHONE_TAKEN');
    expect((await readUser(h, b)).phone).toBeNull();
  });

  it.runIf(usingPostgres)('parallel claims of one phone: exactly one wins', async () => {
    const ids = await Promise.all(Array.from({ length: 10 }, () => h.createUser()));
    const results = await Promise.all(
      ids.map((id) => h.inject({ method: 'PATCH', url: `/users/${id}`, headers: h.keyHeaders(), payload: { phone: '+14155550177' } })),
    );
    expect(results.filter((r) => r.statusCode === 200)).toHaveLength(1);
    expect(results.filter((r) => r.statusCode === 409)).toHaveLength(9);
  });

  it('400 on an invalid phone, and nothing changes', async () => {
    const a = await h.createUser();
    expectError(
      await h.inject({ method: 'PATCH', url: `/users/${a}`, headers: h.keyHeaders(), payload: { phone: '12345', fullName: 'Changed' } }),
      400,
      'USER_PHONE_INVALID',
    );
    expect((await readUser(h, a)).fullName).toBeNull();
  });

  it('rejects fields a caller may not set (mass assignment), changing nothing', async () => {
    const a = await h.createUser();
    for (const payload of [
      { role: 'admin' },
      { emailVerified: true },
      { kycStatus: 'approved' },
      { id: randomUUID() },
      { tenantId: randomUUID() },
      { email: 'new@example.com' },
      { fullName: 'ok', role: 'admin' },
    ]) {
      expectError(await h.inject({ method: 'PATCH', url: `/users/${a}`, headers: h.keyHeaders(), payload }), 400, 'VALIDATION_FAILED');
    }
    const after = await readUser(h, a);
    expect(after).toMatchObject({ id: a, role: 'user', emailVerified: false, kycStatus: null, fullName: null });
  });

  it('404 for an unknown id and for a user of another tenant; 400 for a malformed id', async () => {
    const other = await h.newTenant();
    const foreign = await h.createUser(other);
    expectError(await h.inject({ method: 'PATCH', url: `/users/${randomUUID()}`, headers: h.keyHeaders(), payload: {} }), 404, 'USER_NOT_FOUND');
    expectError(await h.inject({ method: 'PATCH', url: `/users/${foreign}`, headers: h.keyHeaders(), payload: { fullName: 'x' } }), 404, 'USER_NOT_FOUND');
    expect((await readUser(h, foreign, other)).fullName).toBeNull();
    expectError(await h.inject({ method: 'PATCH', url: '/users/nope', headers: h.keyHeaders(), payload: {} }), 400, 'VALIDATION_FAILED');
  });
});

describe('PATCH /users/me errors', () => {
  it('rejects role, verification flag and KYC status (mass assignment)', async () => {
    const id = await h.createUser();
    const headers = h.bearerHeaders(await h.tokenFor(id));
    for (const payload of [{ role: 'admin' }, { emailVerified: true }, { kycStatus: 'approved' }, { id: randomUUID() }]) {
      expectError(await h.inject({ method: 'PATCH', url: '/users/me', headers, payload }), 400, 'VALIDATION_FAILED');
    }
    expect(await readUser(h, id)).toMatchObject({ role: 'user', emailVerified: false, kycStatus: null });
  });

  it('409 when the phone belongs to someone else', async () => {
    const a = await h.createUser();
    await h.container.users.updateUser(h.tenant.tenantId, a, { phone: '+14155550155' });
    const b = await h.createUser();
    const res = await h.inject({ method: 'PATCH', url: '/users/me', headers: h.bearerHeaders(await h.tokenFor(b)), payload: { phone: '+14155550155' } });
    expectError(res, 409, 'USER_PHONE_TAKEN');
  });

  it('404 when the token names a user that no longer exists', async () => {
    const token = await h.tokenFor(randomUUID());
    expectError(await h.inject({ method: 'GET', url: '/users/me', headers: h.bearerHeaders(token) }), 404, 'USER_NOT_FOUND');
  });

  it("404 from a user's own lists too (read before the user: an empty list checks that the user exists)", async () => {
    const token = await h.tokenFor(randomUUID());
    for (const url of ['/evm-eoas', '/kyc/attempts', '/non-custodian-xrpl/wallets']) {
      expectError(await h.inject({ method: 'GET', url, headers: h.bearerHeaders(token) }), 404, 'USER_NOT_FOUND');
    }
    // A user that exists and has no records gets its empty lists.
    const own = await h.tokenFor(await h.createUser());
    expect((await h.inject({ method: 'GET', url: '/evm-eoas', headers: h.bearerHeaders(own) })).json()).toEqual({ total: 0, data: [] });
    expect((await h.inject({ method: 'GET', url: '/kyc/attempts', headers: h.bearerHeaders(own) })).json()).toMatchObject({ total: 0, data: [] });
  });
});

describe('GET errors', () => {
  it('GET /users/{id}: 404 for another tenant and unknown ids', async () => {
    const other = await h.newTenant();
    const foreign = await h.createUser(other);
    expectError(await h.inject({ method: 'GET', url: `/users/${foreign}`, headers: h.keyHeaders() }), 404, 'USER_NOT_FOUND');
    expectError(await h.inject({ method: 'GET', url: `/users/${randomUUID()}`, headers: h.keyHeaders() }), 404, 'USER_NOT_FOUND');
  });

  it('GET /users: 400 for limit 101, limit 0, negative offset, bad afterId and unknown filters', async () => {
    for (const q of ['limit=101', 'limit=0', 'offset=-1', 'afterId=abc', 'limit=ten', 'role=admin']) {
      expectError(await h.inject({ method: 'GET', url: `/users?${q}`, headers: h.keyHeaders() }), 400, 'VALIDATION_FAILED');
    }
  });

  it("GET /users/wallet-addresses: 404 for another user's id as a plain user, and for another tenant", async () => {
    const me = await h.createUser();
    const someone = await h.createUser();
    const res = await h.inject({ method: 'GET', url: `/users/wallet-addresses/${someone}`, headers: h.bearerHeaders(await h.tokenFor(me)) });
    expectError(res, 404, 'USER_NOT_FOUND');
    const other = await h.newTenant();
    const foreign = await h.createUser(other);
    expectError(await h.inject({ method: 'GET', url: `/users/wallet-addresses/${foreign}`, headers: h.keyHeaders() }), 404, 'USER_NOT_FOUND');
  });
});
