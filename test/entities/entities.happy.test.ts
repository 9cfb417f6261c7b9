import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { outbox } from '../helpers/outbox.js';
import { entityBody, entityOf, memberWith, userWithToken, VALID_LEI } from './fixtures.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h.close());

const ALL = ['owner', 'view', 'manage_entity', 'manage_users', 'manage_payment_methods', 'invest', 'sign_documents'];

async function auditTypes(userId?: string) {
  const res = await h.inject({ method: 'GET', url: `/audit-events?limit=100${userId ? `&userId=${userId}` : ''}`, headers: h.keyHeaders() });
  return (res.json().data as Array<{ type: string; details: Record<string, unknown>; actorType: string; actorId: string }>);
}

describe('entities', () => {
  it('a user creates an entity and becomes its owner with every permission; audited and written to the outbox', async () => {
    const owner = await userWithToken(h);
    const res = await h.inject({ method: 'POST', url: '/entities', headers: owner.headers, payload: entityBody({ lei: VALID_LEI }) });
    expect(res.statusCode, res.body).toBe(201);
    const entity = res.json();
    expect(entity).toMatchObject({
      id: expect.any(String),
      legalName: 'Acme Holdings LLC',
      type: 'company',
      jurisdiction: 'US',
      lei: VALID_LEI,
      address: { line1: '1 Main Street', country: 'US' },
      metadata: { sector: 'real-estate' },
      permissions: ALL,
    });
    const users = await h.inject({ method: 'GET', url: `/entities/${entity.id}/users`, headers: owner.headers });
    expect(users.json()).toMatchObject({ total: 1, data: [{ userId: owner.userId, permissions: ALL, email: expect.stringContaining('@') }] });
    const events = await outbox(h, undefined, 'entity.created');
    expect(events.some((e) => e.payload.entityId === entity.id && e.payload.ownerUserId === owner.userId)).toBe(true);
    const audit = await auditTypes(owner.userId);
    expect(audit.find((a) => a.type === 'entity.created')).toMatchObject({ actorType: 'user', actorId: owner.userId, details: { entityId: entity.id } });
  });

  it('an API key or an admin creates an entity for a named user', async () => {
    const userId = await h.createUser();
    const byKey = await h.inject({ method: 'POST', url: '/entities', headers: h.keyHeaders(), payload: entityBody({ userId, legalName: 'By key Ltd', type: 'fund' }) });
    expect(byKey.statusCode, byKey.body).toBe(201);
    const admin = await h.createUser(undefined, undefined, 'admin');
    const byAdmin = await h.inject({
      method: 'POST',
      url: '/entities',
      headers: h.bearerHeaders(await h.tokenFor(admin)),
      payload: entityBody({ userId, legalName: 'By admin Trust', type: 'trust', jurisdiction: 'GB', address: { line1: '1 High St', city: 'London', country: 'GB' } }),
    });
    expect(byAdmin.statusCode, byAdmin.body).toBe(201);
    const mine = await h.inject({ method: 'GET', url: '/entities', headers: h.bearerHeaders(await h.tokenFor(userId)) });
    expect(mine.json().total).toBe(2);
    expect(mine.json().data.map((e: { legalName: string }) => e.legalName)).toEqual(['By key Ltd', 'By admin Trust']);
    expect(mine.json().data[0].permissions).toEqual(ALL);
    const filtered = await h.inject({ method: 'GET', url: `/entities?userId=${userId}&limit=1&offset=1`, headers: h.keyHeaders() });
    expect(filtered.json()).toMatchObject({ total: 2, data: [{ legalName: 'By admin Trust' }] });
    const created = (await outbox(h, undefined, 'entity.created')).find((e) => e.payload.entityId === byKey.json().id);
    expect(created?.payload.actor).toEqual({ type: 'apiKey', id: h.tenant.keyId });
  });

  it('a member sees only the entities they belong to, with their effective permissions', async () => {
    const { entityId, owner } = await entityOf(h);
    await entityOf(h); // someone else's
    const member = await memberWith(h, entityId, owner.headers, ['manage_users']);
    const list = await h.inject({ method: 'GET', url: '/entities', headers: member.headers });
    expect(list.json()).toMatchObject({ total: 1, data: [{ id: entityId, permissions: ['view', 'manage_users'] }] });
    const one = await h.inject({ method: 'GET', url: `/entities/${entityId}`, headers: member.headers });
    expect(one.statusCode).toBe(200);
    expect(one.json().permissions).toEqual(['view', 'manage_users']);
  });

  it('PUT metadata replaces the whole object', async () => {
    const { entityId, owner } = await entityOf(h);
    h.clock.advance(1000);
    const res = await h.inject({ method: 'PUT', url: `/entities/${entityId}/metadata`, headers: owner.headers, payload: { metadata: { fundSize: '10000000', tags: ['a', 'b'] } } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().metadata).toEqual({ fundSize: '10000000', tags: ['a', 'b'] });
    expect(res.json().updatedAt > res.json().createdAt).toBe(true);
    const again = await h.inject({ method: 'GET', url: `/entities/${entityId}`, headers: owner.headers });
    expect(again.json().metadata).toEqual({ fundSize: '10000000', tags: ['a', 'b'] });
    expect((await outbox(h, undefined, 'entity.updated')).some((e) => e.payload.entityId === entityId)).toBe(true);
  });
});

describe('entity users and permissions', () => {
  it('add, grant (idempotent), revoke and remove: each change audited and in the outbox', async () => {
    const { entityId, owner } = await entityOf(h);
    const target = await h.createUser();
    const added = await h.inject({ method: 'POST', url: `/entities/${entityId}/users`, headers: owner.headers, payload: { userId: target } });
    expect(added.statusCode, added.body).toBe(201);
    expect(added.json()).toMatchObject({ userId: target, permissions: ['view'] });

    const grant = () => h.inject({ method: 'POST', url: `/entities/${entityId}/users/${target}/permissions`, headers: owner.headers, payload: { permission: 'invest' } });
    const first = await grant();
    expect(first.statusCode, first.body).toBe(201);
    expect(first.json().permissions).toEqual(['view', 'invest']);
    const second = await grant();
    expect(second.statusCode).toBe(201);
    expect(second.json().permissions).toEqual(['view', 'invest']);
    const grants = (await outbox(h, undefined, 'entity.permission_granted')).filter((e) => e.payload.entityId === entityId);
    expect(grants).toHaveLength(1);

    const revoke = await h.inject({ method: 'DELETE', url: `/entities/${entityId}/users/${target}/permissions/view`, headers: owner.headers });
    expect(revoke.statusCode, revoke.body).toBe(200);
    expect(revoke.json().permissions).toEqual(['invest']);
    const revokeAgain = await h.inject({ method: 'DELETE', url: `/entities/${entityId}/users/${target}/permissions/view`, headers: owner.headers });
    expect(revokeAgain.statusCode).toBe(200);

    const removed = await h.inject({ method: 'DELETE', url: `/entities/${entityId}/users/${target}`, headers: owner.headers });
    expect(removed.statusCode, removed.body).toBe(200);
    expect(removed.json()).toEqual({ entityId, userId: target, removed: true });
    const users = await h.inject({ method: 'GET', url: `/entities/${entityId}/users`, headers: owner.headers });
    expect(users.json().data.map((u: { userId: string }) => u.userId)).toEqual([owner.userId]);

    const types = (await auditTypes(target)).map((a) => a.type);
    expect(types).toEqual(expect.arrayContaining(['entity.member_added', 'entity.permission_granted', 'entity.permission_revoked', 'entity.member_removed']));
    expect(types.filter((t) => t === 'entity.permission_granted')).toHaveLength(1);
    for (const type of ['entity.member_added', 'entity.permission_revoked', 'entity.member_removed']) {
      expect((await outbox(h, undefined, type)).some((e) => e.payload.entityId === entityId && e.payload.userId === target)).toBe(true);
    }
  });

  it('an owner hands over ownership: grant owner to another, then leave', async () => {
    const { entityId, owner } = await entityOf(h);
    const next = await memberWith(h, entityId, owner.headers, ['view']);
    const grant = await h.inject({ method: 'POST', url: `/entities/${entityId}/users/${next.userId}/permissions`, headers: owner.headers, payload: { permission: 'owner' } });
    expect(grant.statusCode).toBe(201);
    const leave = await h.inject({ method: 'DELETE', url: `/entities/${entityId}/users/${owner.userId}`, headers: owner.headers });
    expect(leave.statusCode, leave.body).toBe(200);
    const gone = await h.inject({ method: 'GET', url: `/entities/${entityId}`, headers: owner.headers });
    expect(gone.statusCode).toBe(404);
    const kept = await h.inject({ method: 'GET', url: `/entities/${entityId}`, headers: next.headers });
    expect(kept.json().permissions).toEqual(ALL);
  });

  it('a member without manage_users may still leave', async () => {
    const { entityId, owner } = await entityOf(h);
    const member = await memberWith(h, entityId, owner.headers, ['invest']);
    const res = await h.inject({ method: 'DELETE', url: `/entities/${entityId}/users/${member.userId}`, headers: member.headers });
    expect(res.statusCode, res.body).toBe(200);
  });

  it('permissions are read from the database on every call: a revoke takes effect on the same token', async () => {
    const { entityId, owner } = await entityOf(h);
    const member = await memberWith(h, entityId, owner.headers, ['manage_entity']);
    const put = () => h.inject({ method: 'PUT', url: `/entities/${entityId}/metadata`, headers: member.headers, payload: { metadata: {} } });
    expect((await put()).statusCode).toBe(200);
    await h.inject({ method: 'DELETE', url: `/entities/${entityId}/users/${member.userId}/permissions/manage_entity`, headers: owner.headers });
    const denied = await put();
    expect(denied.statusCode).toBe(403);
    expect(denied.json().code).toBe('ENTITY_PERMISSION_REQUIRED');
  });
});
