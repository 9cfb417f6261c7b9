import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { expectError } from '../helpers/security.js';
import { BAD_LEI, entityBody, entityOf, memberWith, userWithToken, VALID_LEI } from './fixtures.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h.close());

describe('POST /entities errors', () => {
  it('400 with a code for a bad LEI checksum, a country that is not ISO 3166, and oversized metadata; nothing is created', async () => {
    const owner = await userWithToken(h);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ lei: BAD_LEI }, 'ENTITY_LEI_INVALID'],
      [{ jurisdiction: 'XX' }, 'ENTITY_COUNTRY_INVALID'],
      [{ address: { line1: '1 A St', city: 'B', country: 'ZZ' } }, 'ENTITY_COUNTRY_INVALID'],
      [{ metadata: { blob: 'x'.repeat(17 * 1024) } }, 'ENTITY_METADATA_TOO_LARGE'],
      [{ metadata: { a: { b: { c: { d: { e: { f: 1 } } } } } } }, 'ENTITY_METADATA_TOO_LARGE'],
    ];
    for (const [extra, code] of cases) {
      expectError(await h.inject({ method: 'POST', url: '/entities', headers: owner.headers, payload: entityBody(extra) }), 400, code);
    }
    const list = await h.inject({ method: 'GET', url: '/entities', headers: owner.headers });
    expect(list.json().total).toBe(0);
  });

  it('400 for malformed bodies, listing the bad fields', async () => {
    const owner = await userWithToken(h);
    const bodies: unknown[] = [
      {},
      entityBody({ type: 'corporation' }),
      entityBody({ jurisdiction: 'us' }),
      entityBody({ lei: 'short' }),
      entityBody({ legalName: '   ' }),
      entityBody({ extra: true }),
      entityBody({ metadata: 'not an object' }),
      entityBody({ address: { city: 'No line' , country: 'US' } }),
      entityBody({ userId: 'not-a-uuid' }),
    ];
    for (const payload of bodies) {
      const res = await h.inject({ method: 'POST', url: '/entities', headers: owner.headers, payload: payload as object });
      expectError(res, 400, 'VALIDATION_FAILED');
    }
    const res = await h.inject({ method: 'POST', url: '/entities', headers: { ...owner.headers, 'content-type': 'application/json' }, payload: '{"legalName":' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ statusCode: 400, error: 'Bad Request' });
  });

  it('409 when another entity of the tenant has the LEI; another tenant may use it', async () => {
    const owner = await userWithToken(h);
    expect((await h.inject({ method: 'POST', url: '/entities', headers: owner.headers, payload: entityBody({ lei: VALID_LEI }) })).statusCode).toBe(201);
    expectError(await h.inject({ method: 'POST', url: '/entities', headers: owner.headers, payload: entityBody({ lei: VALID_LEI }) }), 409, 'ENTITY_LEI_TAKEN');
    const other = await h.newTenant();
    const otherUser = await h.createUser(other);
    const res = await h.inject({ method: 'POST', url: '/entities', headers: h.keyHeaders(other), payload: entityBody({ lei: VALID_LEI, userId: otherUser }) });
    expect(res.statusCode).toBe(201);
  });

  it('API key without userId 400; unknown user 404; a user naming someone else 404 (the own-record rule)', async () => {
    expectError(await h.inject({ method: 'POST', url: '/entities', headers: h.keyHeaders(), payload: entityBody() }), 400, 'USER_ID_REQUIRED');
    expectError(await h.inject({ method: 'POST', url: '/entities', headers: h.keyHeaders(), payload: entityBody({ userId: randomUUID() }) }), 404, 'USER_NOT_FOUND');
    const other = await h.newTenant();
    const foreignUser = await h.createUser(other);
    expectError(await h.inject({ method: 'POST', url: '/entities', headers: h.keyHeaders(), payload: entityBody({ userId: foreignUser }) }), 404, 'USER_NOT_FOUND');
    const owner = await userWithToken(h);
    expectError(await h.inject({ method: 'POST', url: '/entities', headers: owner.headers, payload: entityBody({ userId: await h.createUser() }) }), 404, 'USER_NOT_FOUND');
  });
});

describe('GET /entities, GET /entities/{id}, PUT metadata errors', () => {
  it('a user lists only their own entities (404 for another userId, the own-record rule); bad paging 400', async () => {
    const owner = await userWithToken(h);
    expectError(await h.inject({ method: 'GET', url: `/entities?userId=${await h.createUser()}`, headers: owner.headers }), 404, 'USER_NOT_FOUND');
    expect((await h.inject({ method: 'GET', url: `/entities?userId=${owner.userId}`, headers: owner.headers })).statusCode).toBe(200);
    expectError(await h.inject({ method: 'GET', url: '/entities?limit=101', headers: owner.headers }), 400, 'VALIDATION_FAILED');
    expectError(await h.inject({ method: 'GET', url: '/entities?userId=nope', headers: h.keyHeaders() }), 400, 'VALIDATION_FAILED');
  });

  it('404 for an unknown entity, an entity the user is outside of, and a malformed id 400', async () => {
    const { entityId } = await entityOf(h);
    const stranger = await userWithToken(h);
    expectError(await h.inject({ method: 'GET', url: `/entities/${randomUUID()}`, headers: h.keyHeaders() }), 404, 'ENTITY_NOT_FOUND');
    expectError(await h.inject({ method: 'GET', url: `/entities/${entityId}`, headers: stranger.headers }), 404, 'ENTITY_NOT_FOUND');
    expectError(await h.inject({ method: 'GET', url: '/entities/not-a-uuid', headers: h.keyHeaders() }), 400, 'VALIDATION_FAILED');
  });

  it('PUT metadata: 403 without manage_entity, 400 malformed or too large, nothing changed', async () => {
    const { entityId, owner } = await entityOf(h);
    const viewer = await memberWith(h, entityId, owner.headers, ['view']);
    const put = (headers: Record<string, string>, payload: unknown) => h.inject({ method: 'PUT', url: `/entities/${entityId}/metadata`, headers, payload: payload as object });
    expectError(await put(viewer.headers, { metadata: { x: 1 } }), 403, 'ENTITY_PERMISSION_REQUIRED');
    expectError(await put(owner.headers, { metadata: { x: 'y'.repeat(20_000) } }), 400, 'ENTITY_METADATA_TOO_LARGE');
    expectError(await put(owner.headers, { metadata: [1, 2] }), 400, 'VALIDATION_FAILED');
    expectError(await put(owner.headers, { meta: {} }), 400, 'VALIDATION_FAILED');
    expectError(await put(owner.headers, {}), 400, 'VALIDATION_FAILED');
    const res = await h.inject({ method: 'GET', url: `/entities/${entityId}`, headers: owner.headers });
    expect(res.json().metadata).toEqual({ sector: 'real-estate' });
  });
});

describe('members and permissions errors', () => {
  it('409 for a user who already is a member; 404 for an unknown user or another tenant\'s user', async () => {
    const { entityId, owner } = await entityOf(h);
    const member = await memberWith(h, entityId, owner.headers, ['view']);
    const add = (userId: string) => h.inject({ method: 'POST', url: `/entities/${entityId}/users`, headers: owner.headers, payload: { userId } });
    expectError(await add(member.userId), 409, 'ENTITY_MEMBER_EXISTS');
    expectError(await add(owner.userId), 409, 'ENTITY_MEMBER_EXISTS');
    expectError(await add(randomUUID()), 404, 'USER_NOT_FOUND');
    expectError(await add(await h.createUser(await h.newTenant())), 404, 'USER_NOT_FOUND');
  });

  it('400 for an unknown permission, in a body or in the path', async () => {
    const { entityId, owner } = await entityOf(h);
    const member = await memberWith(h, entityId, owner.headers, ['view']);
    expectError(
      await h.inject({ method: 'POST', url: `/entities/${entityId}/users`, headers: owner.headers, payload: { userId: await h.createUser(), permissions: ['superuser'] } }),
      400,
      'VALIDATION_FAILED',
    );
    expectError(
      await h.inject({ method: 'POST', url: `/entities/${entityId}/users`, headers: owner.headers, payload: { userId: await h.createUser(), permissions: [] } }),
      400,
      'VALIDATION_FAILED',
    );
    expectError(
      await h.inject({ method: 'POST', url: `/entities/${entityId}/users/${member.userId}/permissions`, headers: owner.headers, payload: { permission: 'admin' } }),
      400,
      'VALIDATION_FAILED',
    );
    expectError(await h.inject({ method: 'DELETE', url: `/entities/${entityId}/users/${member.userId}/permissions/admin`, headers: owner.headers }), 400, 'VALIDATION_FAILED');
  });

  it('404 for a target who is not a member', async () => {
    const { entityId, owner } = await entityOf(h);
    const outsider = await h.createUser();
    expectError(await h.inject({ method: 'DELETE', url: `/entities/${entityId}/users/${outsider}`, headers: owner.headers }), 404, 'ENTITY_MEMBER_NOT_FOUND');
    expectError(
      await h.inject({ method: 'POST', url: `/entities/${entityId}/users/${outsider}/permissions`, headers: owner.headers, payload: { permission: 'view' } }),
      404,
      'ENTITY_MEMBER_NOT_FOUND',
    );
    expectError(await h.inject({ method: 'DELETE', url: `/entities/${entityId}/users/${outsider}/permissions/view`, headers: owner.headers }), 404, 'ENTITY_MEMBER_NOT_FOUND');
  });

  it('409: the last owner cannot leave, be removed, or lose owner (not even by the API key)', async () => {
    const { entityId, owner } = await entityOf(h);
    expectError(await h.inject({ method: 'DELETE', url: `/entities/${entityId}/users/${owner.userId}`, headers: owner.headers }), 409, 'ENTITY_LAST_OWNER');
    expectError(await h.inject({ method: 'DELETE', url: `/entities/${entityId}/users/${owner.userId}`, headers: h.keyHeaders() }), 409, 'ENTITY_LAST_OWNER');
    expectError(await h.inject({ method: 'DELETE', url: `/entities/${entityId}/users/${owner.userId}/permissions/owner`, headers: owner.headers }), 409, 'ENTITY_LAST_OWNER');
    // Another permission of the last owner may go.
    expect((await h.inject({ method: 'DELETE', url: `/entities/${entityId}/users/${owner.userId}/permissions/invest`, headers: owner.headers })).statusCode).toBe(200);
    const users = await h.inject({ method: 'GET', url: `/entities/${entityId}/users`, headers: owner.headers });
    expect(users.json().data[0].permissions).toContain('owner');
  });

  it('403: manage_users alone cannot grant or revoke owner, add an owner, or remove an owner', async () => {
    const { entityId, owner } = await entityOf(h);
    const manager = await memberWith(h, entityId, owner.headers, ['manage_users']);
    const member = await memberWith(h, entityId, owner.headers, ['view']);
    expectError(
      await h.inject({ method: 'POST', url: `/entities/${entityId}/users/${member.userId}/permissions`, headers: manager.headers, payload: { permission: 'owner' } }),
      403,
      'ENTITY_PERMISSION_REQUIRED',
    );
    expectError(
      await h.inject({ method: 'POST', url: `/entities/${entityId}/users`, headers: manager.headers, payload: { userId: await h.createUser(), permissions: ['owner'] } }),
      403,
      'ENTITY_PERMISSION_REQUIRED',
    );
    expectError(await h.inject({ method: 'DELETE', url: `/entities/${entityId}/users/${owner.userId}/permissions/owner`, headers: manager.headers }), 403, 'ENTITY_PERMISSION_REQUIRED');
    expectError(await h.inject({ method: 'DELETE', url: `/entities/${entityId}/users/${owner.userId}`, headers: manager.headers }), 403, 'ENTITY_PERMISSION_REQUIRED');
    // And cannot raise themself either.
    expectError(
      await h.inject({ method: 'POST', url: `/entities/${entityId}/users/${manager.userId}/permissions`, headers: manager.headers, payload: { permission: 'owner' } }),
      403,
      'ENTITY_PERMISSION_REQUIRED',
    );
    const users = await h.inject({ method: 'GET', url: `/entities/${entityId}/users`, headers: owner.headers });
    expect(users.json().data.filter((u: { permissions: string[] }) => u.permissions.includes('owner'))).toHaveLength(1);
  });
});

describe("another tenant's entity", () => {
  it('is 404 on every route with this tenant\'s credentials, and nothing changes', async () => {
    const other = await h.newTenant();
    const { entityId, owner } = await entityOf(h, other);
    const method = await h.inject({
      method: 'POST',
      url: `/entities/${entityId}/manual-payment-methods`,
      headers: owner.headers,
      payload: { kind: 'crypto', details: { chain: 'xrpl', address: 'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh', asset: 'XRP' } },
    });
    const methodId = method.json().id;
    const before = (await h.inject({ method: 'GET', url: `/entities/${entityId}/users`, headers: owner.headers })).json();
    const mine = await userWithToken(h);
    const admin = await h.createUser(undefined, undefined, 'admin');
    for (const headers of [h.keyHeaders(), mine.headers, h.bearerHeaders(await h.tokenFor(admin))]) {
      const calls: Array<[string, string, unknown?]> = [
        ['GET', `/entities/${entityId}`],
        ['PUT', `/entities/${entityId}/metadata`, { metadata: { hacked: true } }],
        ['GET', `/entities/${entityId}/users`],
        ['POST', `/entities/${entityId}/users`, { userId: mine.userId }],
        ['DELETE', `/entities/${entityId}/users/${owner.userId}`],
        ['POST', `/entities/${entityId}/users/${owner.userId}/permissions`, { permission: 'invest' }],
        ['DELETE', `/entities/${entityId}/users/${owner.userId}/permissions/view`],
        ['POST', `/entities/${entityId}/manual-payment-methods`, { kind: 'crypto', details: { chain: 'xrpl', address: 'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh', asset: 'XRP' } }],
        ['GET', `/entities/${entityId}/manual-payment-methods`],
        ['GET', `/entities/${entityId}/manual-payment-methods/${methodId}`],
        ['PATCH', `/entities/${entityId}/manual-payment-methods/${methodId}`, { archived: true }],
        ['POST', `/entities/${entityId}/business-profile-a`, { tin: '12-3456789' }],
        ['GET', `/entities/${entityId}/business-profile-a`],
      ];
      for (const [m, url, payload] of calls) {
        const res = await h.inject({ method: m as 'GET', url, headers, payload: payload as object });
        expectError(res, 404, 'ENTITY_NOT_FOUND');
      }
    }
    const list = await h.inject({ method: 'GET', url: '/entities?limit=100', headers: h.keyHeaders() });
    expect(list.json().data.some((e: { id: string }) => e.id === entityId)).toBe(false);
    const after = await h.inject({ method: 'GET', url: `/entities/${entityId}`, headers: owner.headers });
    expect(after.json().metadata).toEqual({ sector: 'real-estate' });
    expect((await h.inject({ method: 'GET', url: `/entities/${entityId}/users`, headers: owner.headers })).json()).toEqual(before);
    const m = await h.inject({ method: 'GET', url: `/entities/${entityId}/manual-payment-methods/${methodId}`, headers: owner.headers });
    expect(m.json().archived).toBe(false);
  });
});
