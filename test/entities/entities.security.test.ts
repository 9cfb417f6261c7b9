import { afterAll, beforeAll, expect } from 'vitest';
import { createHarness, type Harness, type TestTenant } from '../helpers/harness.js';
import { routeCases } from '../helpers/security.js';
import { cryptoBody, entityBody, entityOf, memberWith, TIN, XRPL_ADDRESS } from './fixtures.js';

let h: Harness;
let entityId: string;
let memberId: string;
let methodId: string;
let ownerId: string;
beforeAll(async () => {
  h = await createHarness();
  const created = await entityOf(h);
  entityId = created.entityId;
  ownerId = created.owner.userId;
  memberId = (await memberWith(h, entityId, created.owner.headers, ['view'])).userId;
  const method = await h.inject({ method: 'POST', url: `/entities/${entityId}/manual-payment-methods`, headers: created.owner.headers, payload: cryptoBody('xrpl', XRPL_ADDRESS, 'XRP') });
  methodId = method.json().id;
});
afterAll(async () => h.close());

const accepts = { apiKey: true, bearer: 'user' } as const;

/**
 * An entity of another tenant, created through HTTP by a user of that tenant, with a member
 * holding only "view" and one payment method; afterwards none of it may have changed.
 */
interface ForeignEntity {
  tenant: TestTenant;
  entityId: string;
  memberId: string;
  methodId: string;
}
let foreignEntity: ForeignEntity | undefined;
async function otherTenantsEntity(): Promise<ForeignEntity> {
  const tenant = await h.newTenant();
  const { entityId: id, owner } = await entityOf(h, tenant);
  const member = await memberWith(h, id, owner.headers, ['view'], tenant);
  const method = await h.inject({ method: 'POST', url: `/entities/${id}/manual-payment-methods`, headers: owner.headers, payload: { ...cryptoBody('xrpl', XRPL_ADDRESS, 'XRP'), label: 'foreign' } });
  expect(method.statusCode).toBe(201);
  foreignEntity = { tenant, entityId: id, memberId: member.userId, methodId: method.json().id };
  return foreignEntity;
}
async function foreignEntityUnchanged(): Promise<void> {
  const { tenant, entityId: id, memberId: member, methodId: method } = foreignEntity!;
  const headers = h.keyHeaders(tenant);
  const entity = await h.inject({ method: 'GET', url: `/entities/${id}`, headers });
  expect(entity.json()).toMatchObject({ id, metadata: { sector: 'real-estate' } });
  const users = await h.inject({ method: 'GET', url: `/entities/${id}/users`, headers });
  expect(users.json().total).toBe(2);
  expect(users.json().data.find((u: { userId: string }) => u.userId === member)).toMatchObject({ permissions: ['view'] });
  const methods = await h.inject({ method: 'GET', url: `/entities/${id}/manual-payment-methods`, headers });
  expect(methods.json().total).toBe(1);
  const one = await h.inject({ method: 'GET', url: `/entities/${id}/manual-payment-methods/${method}`, headers });
  expect(one.json()).toMatchObject({ label: 'foreign', archived: false });
  const profile = await h.inject({ method: 'GET', url: `/entities/${id}/business-profile-a`, headers });
  expect(profile.json()).toMatchObject({ statusCode: 404, code: 'BUSINESS_PROFILE_NOT_FOUND' });
}
/** This route's URL at another tenant's entity (member, method), and the check that nothing changed. */
const foreignCase = (path: (f: ForeignEntity) => string) => ({
  foreign: async () => path(await otherTenantsEntity()),
  unchanged: foreignEntityUnchanged,
});

routeCases(() => h, 'POST /entities', { url: () => '/entities', payload: () => entityBody({ userId: ownerId }), accepts });
routeCases(() => h, 'GET /entities', { url: () => '/entities', accepts });
routeCases(() => h, 'GET /entities/{id}', { url: () => `/entities/${entityId}`, accepts, ...foreignCase((f) => `/entities/${f.entityId}`) });
routeCases(() => h, 'PUT /entities/{id}/metadata', {
  url: () => `/entities/${entityId}/metadata`,
  payload: () => ({ metadata: { a: 1 } }),
  accepts,
  ...foreignCase((f) => `/entities/${f.entityId}/metadata`),
});
routeCases(() => h, 'GET /entities/{id}/users', { url: () => `/entities/${entityId}/users`, accepts, ...foreignCase((f) => `/entities/${f.entityId}/users`) });
routeCases(() => h, 'POST /entities/{id}/users', {
  url: () => `/entities/${entityId}/users`,
  payload: () => ({ userId: memberId }),
  accepts,
  ...foreignCase((f) => `/entities/${f.entityId}/users`),
});
routeCases(() => h, 'DELETE /entities/{id}/users/{targetUserId}', {
  url: () => `/entities/${entityId}/users/${memberId}`,
  accepts,
  ...foreignCase((f) => `/entities/${f.entityId}/users/${f.memberId}`),
});
routeCases(() => h, 'POST /entities/{id}/users/{targetUserId}/permissions', {
  url: () => `/entities/${entityId}/users/${memberId}/permissions`,
  payload: () => ({ permission: 'invest' }),
  accepts,
  ...foreignCase((f) => `/entities/${f.entityId}/users/${f.memberId}/permissions`),
});
routeCases(() => h, 'DELETE /entities/{entityId}/users/{targetUserId}/permissions/{permission}', {
  url: () => `/entities/${entityId}/users/${memberId}/permissions/view`,
  accepts,
  ...foreignCase((f) => `/entities/${f.entityId}/users/${f.memberId}/permissions/view`),
});
routeCases(() => h, 'POST /entities/{id}/manual-payment-methods', {
  url: () => `/entities/${entityId}/manual-payment-methods`,
  payload: () => cryptoBody('xrpl', XRPL_ADDRESS, 'XRP'),
  accepts,
  ...foreignCase((f) => `/entities/${f.entityId}/manual-payment-methods`),
});
routeCases(() => h, 'GET /entities/{id}/manual-payment-methods', {
  url: () => `/entities/${entityId}/manual-payment-methods`,
  accepts,
  ...foreignCase((f) => `/entities/${f.entityId}/manual-payment-methods`),
});
routeCases(() => h, 'GET /entities/{id}/manual-payment-methods/{methodId}', {
  url: () => `/entities/${entityId}/manual-payment-methods/${methodId}`,
  accepts,
  ...foreignCase((f) => `/entities/${f.entityId}/manual-payment-methods/${f.methodId}`),
});
routeCases(() => h, 'PATCH /entities/{id}/manual-payment-methods/{methodId}', {
  url: () => `/entities/${entityId}/manual-payment-methods/${methodId}`,
  payload: () => ({ label: 'x', archived: true }),
  accepts,
  ...foreignCase((f) => `/entities/${f.entityId}/manual-payment-methods/${f.methodId}`),
});
routeCases(() => h, 'POST /entities/{id}/business-profile-a', {
  url: () => `/entities/${entityId}/business-profile-a`,
  payload: () => ({ tin: TIN }),
  accepts,
  ...foreignCase((f) => `/entities/${f.entityId}/business-profile-a`),
});
routeCases(() => h, 'GET /business-profiles/pending', { url: () => '/business-profiles/pending', accepts: { apiKey: true, bearer: 'admin' } });
routeCases(() => h, 'GET /entities/{id}/business-profile-a', {
  url: () => `/entities/${entityId}/business-profile-a`,
  accepts,
  ...foreignCase((f) => `/entities/${f.entityId}/business-profile-a`),
});
