import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h.close());

describe('POST /users', () => {
  it('creates a user without a password, trimming and lower-casing the email', async () => {
    const res = await h.inject({
      method: 'POST',
      url: '/users',
      headers: h.keyHeaders(),
      payload: { email: '  Alice.Smith@Example.COM ', fullName: 'Alice Smith' },
    });
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      email: 'alice.smith@example.com',
      fullName: 'Alice Smith',
      phone: null,
      role: 'user',
      emailVerified: false,
      kycStatus: null,
    });
    expect(body).not.toHaveProperty('password');
    expect(body).not.toHaveProperty('passwordHash');
    expect(body).not.toHaveProperty('tenantId');
    expect(res.headers['x-request-id']).toBeTruthy();
  });

  it('accepts the same email in another tenant', async () => {
    const other = await h.newTenant();
    const payload = { email: 'shared@example.com' };
    expect((await h.inject({ method: 'POST', url: '/users', headers: h.keyHeaders(), payload })).statusCode).toBe(201);
    expect((await h.inject({ method: 'POST', url: '/users', headers: h.keyHeaders(other), payload })).statusCode).toBe(201);
  });
});

const id8 = () => randomUUID().slice(0, 8);

describe('GET /users/{id} and PATCH /users/{id}', () => {
  it("an admin's token reads a user's full profile too (the operator console's user page); editing stays the back end's", async () => {
    const id = await h.createUser(undefined, `admin-reads-${id8()}@example.com`);
    const admin = await h.tokenFor(await h.createUser(undefined, undefined, 'admin'), undefined, 'admin');
    const got = await h.inject({ method: 'GET', url: `/users/${id}`, headers: h.bearerHeaders(admin) });
    expect(got.statusCode).toBe(200);
    expect(got.json()).toMatchObject({ id, walletAddresses: { evm: null, xrpl: null } });
    const patched = await h.inject({ method: 'PATCH', url: `/users/${id}`, headers: h.bearerHeaders(admin), payload: { fullName: 'x' } });
    expect(patched.statusCode).toBe(403);
  });

  it('reads the full profile back and edits name and phone (stored as E.164)', async () => {
    const id = await h.createUser(undefined, 'bob@example.com');
    const got = await h.inject({ method: 'GET', url: `/users/${id}`, headers: h.keyHeaders() });
    expect(got.statusCode).toBe(200);
    expect(got.json()).toMatchObject({ id, email: 'bob@example.com', walletAddresses: { evm: null, evmCompatible: null, xrpl: null } });

    const patched = await h.inject({
      method: 'PATCH',
      url: `/users/${id}`,
      headers: h.keyHeaders(),
      payload: { fullName: 'Bob B', phone: '+1 (415) 555-0132' },
    });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()).toMatchObject({ id, fullName: 'Bob B', phone: '+14155550132' });

    const cleared = await h.inject({ method: 'PATCH', url: `/users/${id}`, headers: h.keyHeaders(), payload: { phone: null } });
    expect(cleared.json()).toMatchObject({ phone: null, fullName: 'Bob B' });
  });
});

describe('GET /users', () => {
  it('pages with limit/offset and afterId, and filters by exact email', async () => {
    const t = await h.newTenant();
    const ids: string[] = [];
    for (let i = 0; i < 25; i++) ids.push(await h.createUser(t, `p${String(i).padStart(2, '0')}@example.com`));

    const first = await h.inject({ method: 'GET', url: '/users', headers: h.keyHeaders(t) });
    expect(first.statusCode).toBe(200);
    expect(first.json().total).toBe(25);
    expect(first.json().data).toHaveLength(20);
    expect(first.json().data.map((u: { id: string }) => u.id)).toEqual(ids.slice(0, 20));

    const second = await h.inject({ method: 'GET', url: '/users?limit=10&offset=20', headers: h.keyHeaders(t) });
    expect(second.json().data.map((u: { id: string }) => u.id)).toEqual(ids.slice(20));

    const keyset = await h.inject({ method: 'GET', url: `/users?limit=3&afterId=${ids[9]}`, headers: h.keyHeaders(t) });
    expect(keyset.json()).toMatchObject({ total: 25 });
    expect(keyset.json().data.map((u: { id: string }) => u.id)).toEqual(ids.slice(10, 13));

    const byEmail = await h.inject({ method: 'GET', url: '/users?email=P07@example.com', headers: h.keyHeaders(t) });
    expect(byEmail.json()).toMatchObject({ total: 1, data: [{ id: ids[7] }] });

    const partial = await h.inject({ method: 'GET', url: '/users?email=p0', headers: h.keyHeaders(t) });
    expect(partial.json()).toEqual({ total: 0, data: [] });

    const limit100 = await h.inject({ method: 'GET', url: '/users?limit=100', headers: h.keyHeaders(t) });
    expect(limit100.json().data).toHaveLength(25);
  });

  it('filters by evmEoa (case-insensitive) and xrplSecureAccountAddress', async () => {
    const t = await h.newTenant();
    const a = await h.createUser(t);
    await h.createUser(t);
    await h.container.users.setFields(t.tenantId, a, {
      evmEoa: '0xabcdef0000000000000000000000000000000001',
      xrplSecureAccountAddress: 'rPEPPER7kfTD9w2To4CQk6UCfuHM9c6GDY',
    });
    const byEoa = await h.inject({
      method: 'GET',
      url: '/users?evmEoa=0xABCDEF0000000000000000000000000000000001',
      headers: h.keyHeaders(t),
    });
    expect(byEoa.json()).toMatchObject({ total: 1, data: [{ id: a }] });
    const byXrpl = await h.inject({
      method: 'GET',
      url: '/users?xrplSecureAccountAddress=rPEPPER7kfTD9w2To4CQk6UCfuHM9c6GDY',
      headers: h.keyHeaders(t),
    });
    expect(byXrpl.json()).toMatchObject({ total: 1, data: [{ id: a, xrplSecureAccountAddress: 'rPEPPER7kfTD9w2To4CQk6UCfuHM9c6GDY' }] });
  });

  it('is open to an admin bearer token', async () => {
    const admin = await h.createUser(undefined, undefined, 'admin');
    const res = await h.inject({ method: 'GET', url: '/users?limit=1', headers: h.bearerHeaders(await h.tokenFor(admin)) });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toHaveLength(1);
  });
});

describe('/users/me', () => {
  it('reads and edits the calling user', async () => {
    const id = await h.createUser(undefined, 'me@example.com');
    const headers = h.bearerHeaders(await h.tokenFor(id));
    const me = await h.inject({ method: 'GET', url: '/users/me', headers });
    expect(me.statusCode).toBe(200);
    expect(me.json()).toMatchObject({ id, email: 'me@example.com' });
    const patched = await h.inject({ method: 'PATCH', url: '/users/me', headers, payload: { fullName: 'Me Myself', phone: '+442071838750' } });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()).toMatchObject({ id, fullName: 'Me Myself', phone: '+442071838750' });
  });
});

describe('GET /users/wallet-addresses/{userId}', () => {
  it('answers to the API key, the user and an admin', async () => {
    const id = await h.createUser();
    await h.container.users.setFields(h.tenant.tenantId, id, {
      evmEoa: '0x1111111111111111111111111111111111111111',
      xrplAddress: 'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh',
    });
    const expected = { evm: '0x1111111111111111111111111111111111111111', evmCompatible: null, xrpl: 'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh' };
    const byKey = await h.inject({ method: 'GET', url: `/users/wallet-addresses/${id}`, headers: h.keyHeaders() });
    expect(byKey.statusCode).toBe(200);
    expect(byKey.json()).toEqual(expected);
    const byOwner = await h.inject({ method: 'GET', url: `/users/wallet-addresses/${id}`, headers: h.bearerHeaders(await h.tokenFor(id)) });
    expect(byOwner.json()).toEqual(expected);
    const admin = await h.createUser(undefined, undefined, 'admin');
    const byAdmin = await h.inject({ method: 'GET', url: `/users/wallet-addresses/${id}`, headers: h.bearerHeaders(await h.tokenFor(admin)) });
    expect(byAdmin.json()).toEqual(expected);
  });
});
