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
    const { data: body, response } = await h.api(h.keyHeaders()).POST('/users', { body: { email: '  Alice.Smith@Example.COM ', fullName: 'Alice Smith' } });
    expect(response.status).toBe(201);
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
    expect(response.headers.get('x-request-id')).toBeTruthy();
  });

  it('accepts the same email in another tenant', async () => {
    const other = await h.newTenant();
    const body = { email: 'shared@example.com' };
    expect((await h.api(h.keyHeaders()).POST('/users', { body })).response.status).toBe(201);
    expect((await h.api(h.keyHeaders(other)).POST('/users', { body })).response.status).toBe(201);
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
    const api = h.api(h.keyHeaders());
    const byId = { params: { path: { id } } };
    const got = await api.GET('/users/{id}', byId);
    expect(got.response.status).toBe(200);
    expect(got.data).toMatchObject({ id, email: 'bob@example.com', walletAddresses: { evm: null, evmCompatible: null, xrpl: null } });

    const patched = await api.PATCH('/users/{id}', { ...byId, body: { fullName: 'Bob B', phone: '+1 (415) 555-0132' } });
    expect(patched.response.status).toBe(200);
    expect(patched.data).toMatchObject({ id, fullName: 'Bob B', phone: '+14155550132' });

    const cleared = await api.PATCH('/users/{id}', { ...byId, body: { phone: null } });
    expect(cleared.data).toMatchObject({ phone: null, fullName: 'Bob B' });
  });
});

describe('GET /users', () => {
  it('pages with limit/offset and afterId, and filters by exact email', async () => {
    const t = await h.newTenant();
    const ids: string[] = [];
    for (let i = 0; i < 25; i++) ids.push(await h.createUser(t, `p${String(i).padStart(2, '0')}@example.com`));

    const api = h.api(h.keyHeaders(t));
    const first = await api.GET('/users');
    expect(first.response.status).toBe(200);
    expect(first.data!.total).toBe(25);
    expect(first.data!.data).toHaveLength(20);
    expect(first.data!.data.map((u) => u.id)).toEqual(ids.slice(0, 20));

    const second = await api.GET('/users', { params: { query: { limit: 10, offset: 20 } } });
    expect(second.data!.data.map((u) => u.id)).toEqual(ids.slice(20));

    const keyset = await api.GET('/users', { params: { query: { limit: 3, afterId: ids[9] } } });
    expect(keyset.data).toMatchObject({ total: 25 });
    expect(keyset.data!.data.map((u) => u.id)).toEqual(ids.slice(10, 13));

    const byEmail = await api.GET('/users', { params: { query: { email: 'P07@example.com' } } });
    expect(byEmail.data).toMatchObject({ total: 1, data: [{ id: ids[7] }] });

    const partial = await api.GET('/users', { params: { query: { email: 'p0' } } });
    expect(partial.data).toEqual({ total: 0, data: [] });

    const limit100 = await api.GET('/users', { params: { query: { limit: 100 } } });
    expect(limit100.data!.data).toHaveLength(25);
  });

  it('filters by evmEoa (case-insensitive) and xrplSecureAccountAddress', async () => {
    const t = await h.newTenant();
    const a = await h.createUser(t);
    await h.createUser(t);
    await h.container.users.setFields(t.tenantId, a, {
      evmEoa: '0xabcdef0000000000000000000000000000000001',
      xrplSecureAccountAddress: 'rPEPPER7kfTD9w2To4CQk6UCfuHM9c6GDY',
    });
    const api = h.api(h.keyHeaders(t));
    const byEoa = await api.GET('/users', { params: { query: { evmEoa: '0xABCDEF0000000000000000000000000000000001' } } });
    expect(byEoa.data).toMatchObject({ total: 1, data: [{ id: a }] });
    const byXrpl = await api.GET('/users', { params: { query: { xrplSecureAccountAddress: 'rPEPPER7kfTD9w2To4CQk6UCfuHM9c6GDY' } } });
    expect(byXrpl.data).toMatchObject({ total: 1, data: [{ id: a, xrplSecureAccountAddress: 'rPEPPER7kfTD9w2To4CQk6UCfuHM9c6GDY' }] });
  });

  it('is open to an admin bearer token', async () => {
    const admin = await h.createUser(undefined, undefined, 'admin');
    const { data, response } = await h.api(h.bearerHeaders(await h.tokenFor(admin))).GET('/users', { params: { query: { limit: 1 } } });
    expect(response.status).toBe(200);
    expect(data!.data).toHaveLength(1);
  });
});

describe('/users/me', () => {
  it('reads and edits the calling user', async () => {
    const id = await h.createUser(undefined, 'me@example.com');
    const headers = h.bearerHeaders(await h.tokenFor(id));
    const me = await h.api(headers).GET('/users/me');
    expect(me.response.status).toBe(200);
    expect(me.data).toMatchObject({ id, email: 'me@example.com' });
    const patched = await h.api(headers).PATCH('/users/me', { body: { fullName: 'Me Myself', phone: '+442071838750' } });
    expect(patched.response.status).toBe(200);
    expect(patched.data).toMatchObject({ id, fullName: 'Me Myself', phone: '+442071838750' });
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
    const read = (headers: Record<string, string>) => h.api(headers).GET('/users/wallet-addresses/{userId}', { params: { path: { userId: id } } });
    const byKey = await read(h.keyHeaders());
    expect(byKey.response.status).toBe(200);
    expect(byKey.data).toEqual(expected);
    const byOwner = await read(h.bearerHeaders(await h.tokenFor(id)));
    expect(byOwner.data).toEqual(expected);
    const admin = await h.createUser(undefined, undefined, 'admin');
    const byAdmin = await read(h.bearerHeaders(await h.tokenFor(admin)));
    expect(byAdmin.data).toEqual(expected);
  });
});
