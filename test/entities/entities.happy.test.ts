import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { outbox } from '../helpers/outbox.js';
import { validEntity, entityOf, memberWith, userWithToken, VALID_LEI } from './fixtures.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h.close());

const ALL = ['owner', 'view', 'manage_entity', 'manage_users', 'manage_payment_methods', 'invest', 'sign_documents'];

async function auditTypes(userId?: string) {
  const { data } = await h.api(h.keyHeaders()).GET('/audit-events', { params: { query: { limit: 100, ...(userId ? { userId } : {}) } } });
  return data!.data;
}

describe('entities', () => {
  it('a user creates an entity and becomes its owner with every permission; audited and written to the outbox', async () => {
    const owner = await userWithToken(h);
    const { data: entity, error, response } = await h.api(owner.headers).POST('/entities', { body: validEntity({ lei: VALID_LEI }) });
    expect(response.status, JSON.stringify(error)).toBe(201);
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
    const users = await h.api(owner.headers).GET('/entities/{id}/users', { params: { path: { id: entity!.id } } });
    expect(users.data).toMatchObject({ total: 1, data: [{ userId: owner.userId, permissions: ALL, email: expect.stringContaining('@') }] });
    const events = await outbox(h, undefined, 'entity.created');
    expect(events.some((e) => e.payload.entityId === entity!.id && e.payload.ownerUserId === owner.userId)).toBe(true);
    const audit = await auditTypes(owner.userId);
    expect(audit.find((a) => a.type === 'entity.created')).toMatchObject({ actorType: 'user', actorId: owner.userId, details: { entityId: entity!.id } });
  });

  it('an API key or an admin creates an entity for a named user', async () => {
    const userId = await h.createUser();
    const byKey = await h.api(h.keyHeaders()).POST('/entities', { body: validEntity({ userId, legalName: 'By key Ltd', type: 'fund' }) });
    expect(byKey.response.status, JSON.stringify(byKey.error)).toBe(201);
    const admin = await h.createUser(undefined, undefined, 'admin');
    const byAdmin = await h.api(h.bearerHeaders(await h.tokenFor(admin))).POST('/entities', {
      body: validEntity({ userId, legalName: 'By admin Trust', type: 'trust', jurisdiction: 'GB', address: { line1: '1 High St', city: 'London', country: 'GB' } }),
    });
    expect(byAdmin.response.status, JSON.stringify(byAdmin.error)).toBe(201);
    const mine = await h.api(h.bearerHeaders(await h.tokenFor(userId))).GET('/entities');
    expect(mine.data!.total).toBe(2);
    expect(mine.data!.data.map((e) => e.legalName)).toEqual(['By key Ltd', 'By admin Trust']);
    expect(mine.data!.data[0]!.permissions).toEqual(ALL);
    const filtered = await h.api(h.keyHeaders()).GET('/entities', { params: { query: { userId, limit: 1, offset: 1 } } });
    expect(filtered.data).toMatchObject({ total: 2, data: [{ legalName: 'By admin Trust' }] });
    const created = (await outbox(h, undefined, 'entity.created')).find((e) => e.payload.entityId === byKey.data!.id);
    expect(created?.payload.actor).toEqual({ type: 'apiKey', id: h.tenant.keyId });
  });

  it('a member sees only the entities they belong to, with their effective permissions', async () => {
    const { entityId, owner } = await entityOf(h);
    await entityOf(h); // someone else's
    const member = await memberWith(h, entityId, owner.headers, ['manage_users']);
    const list = await h.api(member.headers).GET('/entities');
    expect(list.data).toMatchObject({ total: 1, data: [{ id: entityId, permissions: ['view', 'manage_users'] }] });
    const one = await h.api(member.headers).GET('/entities/{id}', { params: { path: { id: entityId } } });
    expect(one.response.status).toBe(200);
    expect(one.data!.permissions).toEqual(['view', 'manage_users']);
  });

  it('PUT metadata replaces the whole object', async () => {
    const { entityId, owner } = await entityOf(h);
    h.clock.advance(1000);
    const { data, error, response } = await h.api(owner.headers).PUT('/entities/{id}/metadata', { params: { path: { id: entityId } }, body: { metadata: { fundSize: '10000000', tags: ['a', 'b'] } } });
    expect(response.status, JSON.stringify(error)).toBe(200);
    expect(data!.metadata).toEqual({ fundSize: '10000000', tags: ['a', 'b'] });
    expect(data!.updatedAt > data!.createdAt).toBe(true);
    const again = await h.api(owner.headers).GET('/entities/{id}', { params: { path: { id: entityId } } });
    expect(again.data!.metadata).toEqual({ fundSize: '10000000', tags: ['a', 'b'] });
    expect((await outbox(h, undefined, 'entity.updated')).some((e) => e.payload.entityId === entityId)).toBe(true);
  });
});

describe('entity users and permissions', () => {
  it('add, grant (idempotent), revoke and remove: each change audited and in the outbox', async () => {
    const { entityId, owner } = await entityOf(h);
    const target = await h.createUser();
    const api = h.api(owner.headers);
    const added = await api.POST('/entities/{id}/users', { params: { path: { id: entityId } }, body: { userId: target } });
    expect(added.response.status, JSON.stringify(added.error)).toBe(201);
    expect(added.data).toMatchObject({ userId: target, permissions: ['view'] });

    const grant = () => api.POST('/entities/{id}/users/{targetUserId}/permissions', { params: { path: { id: entityId, targetUserId: target } }, body: { permission: 'invest' } });
    const first = await grant();
    expect(first.response.status, JSON.stringify(first.error)).toBe(201);
    expect(first.data!.permissions).toEqual(['view', 'invest']);
    const second = await grant();
    expect(second.response.status).toBe(201);
    expect(second.data!.permissions).toEqual(['view', 'invest']);
    const grants = (await outbox(h, undefined, 'entity.permission_granted')).filter((e) => e.payload.entityId === entityId);
    expect(grants).toHaveLength(1);

    const revokeView = () =>
      api.DELETE('/entities/{entityId}/users/{targetUserId}/permissions/{permission}', { params: { path: { entityId, targetUserId: target, permission: 'view' } } });
    const revoke = await revokeView();
    expect(revoke.response.status, JSON.stringify(revoke.error)).toBe(200);
    expect(revoke.data!.permissions).toEqual(['invest']);
    const revokeAgain = await revokeView();
    expect(revokeAgain.response.status).toBe(200);

    const removed = await api.DELETE('/entities/{id}/users/{targetUserId}', { params: { path: { id: entityId, targetUserId: target } } });
    expect(removed.response.status, JSON.stringify(removed.error)).toBe(200);
    expect(removed.data).toEqual({ entityId, userId: target, removed: true });
    const users = await api.GET('/entities/{id}/users', { params: { path: { id: entityId } } });
    expect(users.data!.data.map((u) => u.userId)).toEqual([owner.userId]);

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
    const api = h.api(owner.headers);
    const grant = await api.POST('/entities/{id}/users/{targetUserId}/permissions', { params: { path: { id: entityId, targetUserId: next.userId } }, body: { permission: 'owner' } });
    expect(grant.response.status).toBe(201);
    const leave = await api.DELETE('/entities/{id}/users/{targetUserId}', { params: { path: { id: entityId, targetUserId: owner.userId } } });
    expect(leave.response.status, JSON.stringify(leave.error)).toBe(200);
    const gone = await api.GET('/entities/{id}', { params: { path: { id: entityId } } });
    expect(gone.response.status).toBe(404);
    const kept = await h.api(next.headers).GET('/entities/{id}', { params: { path: { id: entityId } } });
    expect(kept.data!.permissions).toEqual(ALL);
  });

  it('a member without manage_users may still leave', async () => {
    const { entityId, owner } = await entityOf(h);
    const member = await memberWith(h, entityId, owner.headers, ['invest']);
    const { error, response } = await h.api(member.headers).DELETE('/entities/{id}/users/{targetUserId}', { params: { path: { id: entityId, targetUserId: member.userId } } });
    expect(response.status, JSON.stringify(error)).toBe(200);
  });

  it('permissions are read from the database on every call: a revoke takes effect on the same token', async () => {
    const { entityId, owner } = await entityOf(h);
    const member = await memberWith(h, entityId, owner.headers, ['manage_entity']);
    const put = () => h.api(member.headers).PUT('/entities/{id}/metadata', { params: { path: { id: entityId } }, body: { metadata: {} } });
    expect((await put()).response.status).toBe(200);
    await h.api(owner.headers).DELETE('/entities/{entityId}/users/{targetUserId}/permissions/{permission}', {
      params: { path: { entityId, targetUserId: member.userId, permission: 'manage_entity' } },
    });
    const denied = await put();
    expect(denied.response.status).toBe(403);
    expect(denied.error!.code).toBe('ENTITY_PERMISSION_REQUIRED');
  });
});
