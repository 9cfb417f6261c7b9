import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PERMISSIONS, type Permission } from '../../src/modules/entities/permissions.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { cryptoBody, entityOf, memberWith, TIN, userWithToken, XRPL_ADDRESS } from './fixtures.js';

/**
 * The permission matrix: for every permission, a member holding only it calls every entity
 * route: allowed where the permission suffices, 403 where it does not; a user outside the
 * entity gets 404 everywhere. Runs with a listening server: the business-profile submission
 * goes to the sandbox over HTTP.
 */
let h: Harness;
beforeAll(async () => {
  h = await createHarness({ listen: true });
});
afterAll(async () => h.close());

interface Ctx {
  entityId: string;
  methodId: string;
  otherId: string;
}
interface RouteCase {
  name: string;
  needs: Permission;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: (c: Ctx) => string;
  payload?: (c: Ctx) => unknown;
  ok: number;
}

const ROUTES: RouteCase[] = [
  { name: 'GET entity', needs: 'view', method: 'GET', url: (c) => `/entities/${c.entityId}`, ok: 200 },
  { name: 'PUT metadata', needs: 'manage_entity', method: 'PUT', url: (c) => `/entities/${c.entityId}/metadata`, payload: () => ({ metadata: { k: 'v' } }), ok: 200 },
  { name: 'GET users', needs: 'view', method: 'GET', url: (c) => `/entities/${c.entityId}/users`, ok: 200 },
  { name: 'POST users', needs: 'manage_users', method: 'POST', url: (c) => `/entities/${c.entityId}/users`, payload: () => ({ userId: newUsers.shift() }), ok: 201 },
  { name: 'POST permission', needs: 'manage_users', method: 'POST', url: (c) => `/entities/${c.entityId}/users/${c.otherId}/permissions`, payload: () => ({ permission: 'invest' }), ok: 201 },
  { name: 'DELETE permission', needs: 'manage_users', method: 'DELETE', url: (c) => `/entities/${c.entityId}/users/${c.otherId}/permissions/sign_documents`, ok: 200 },
  { name: 'POST payment method', needs: 'manage_payment_methods', method: 'POST', url: (c) => `/entities/${c.entityId}/manual-payment-methods`, payload: () => cryptoBody('xrpl', XRPL_ADDRESS, 'XRP'), ok: 201 },
  { name: 'GET payment methods', needs: 'view', method: 'GET', url: (c) => `/entities/${c.entityId}/manual-payment-methods`, ok: 200 },
  { name: 'GET payment method', needs: 'view', method: 'GET', url: (c) => `/entities/${c.entityId}/manual-payment-methods/${c.methodId}`, ok: 200 },
  { name: 'PATCH payment method', needs: 'manage_payment_methods', method: 'PATCH', url: (c) => `/entities/${c.entityId}/manual-payment-methods/${c.methodId}`, payload: () => ({ label: 'x' }), ok: 200 },
  { name: 'POST business profile', needs: 'manage_entity', method: 'POST', url: (c) => `/entities/${c.entityId}/business-profile-a`, payload: () => ({ tin: TIN }), ok: 201 },
  { name: 'GET business profile', needs: 'view', method: 'GET', url: (c) => `/entities/${c.entityId}/business-profile-a`, ok: 200 },
  // Last: removes the other member.
  { name: 'DELETE user', needs: 'manage_users', method: 'DELETE', url: (c) => `/entities/${c.entityId}/users/${c.otherId}`, ok: 200 },
];

const newUsers: string[] = [];

/** What each permission alone lets a member do, written out (docs/decisions.md), not derived from the code. */
const SUFFICES: Record<Permission, Permission[]> = {
  owner: ['view', 'manage_entity', 'manage_users', 'manage_payment_methods'],
  view: ['view'],
  manage_entity: ['view', 'manage_entity'],
  manage_users: ['view', 'manage_users'],
  manage_payment_methods: ['view', 'manage_payment_methods'],
  invest: [],
  sign_documents: [],
};

describe('the permission matrix (each permission x each route)', () => {
  for (const permission of PERMISSIONS) {
    it(`a member holding only "${permission}"`, async () => {
      const { entityId, owner } = await entityOf(h);
      // Submitted by the owner first when the member cannot, so the GET has a profile to read.
      if (!SUFFICES[permission].includes('manage_entity')) {
        expect((await h.inject({ method: 'POST', url: `/entities/${entityId}/business-profile-a`, headers: owner.headers, payload: { tin: TIN } })).statusCode).toBe(201);
      }
      const method = await h.inject({ method: 'POST', url: `/entities/${entityId}/manual-payment-methods`, headers: owner.headers, payload: cryptoBody('xrpl', XRPL_ADDRESS, 'XRP') });
      const other = await memberWith(h, entityId, owner.headers, ['view', 'sign_documents']);
      const member = await memberWith(h, entityId, owner.headers, [permission]);
      const ctx: Ctx = { entityId, methodId: method.json().id, otherId: other.userId };
      newUsers.push(await h.createUser());
      const outcome: Record<string, string> = {};
      const expected: Record<string, string> = {};
      for (const route of ROUTES) {
        const res = await h.inject({ method: route.method, url: route.url(ctx), headers: member.headers, payload: route.payload?.(ctx) as object });
        const allowed = SUFFICES[permission].includes(route.needs);
        expected[route.name] = allowed ? String(route.ok) : '403 ENTITY_PERMISSION_REQUIRED';
        outcome[route.name] = res.statusCode < 300 ? String(res.statusCode) : `${res.statusCode} ${res.json().code}`;
      }
      expect(outcome).toEqual(expected);
    });
  }

  it('a user outside the entity gets 404 on every route, and nothing changes', async () => {
    const { entityId, owner } = await entityOf(h);
    const method = await h.inject({ method: 'POST', url: `/entities/${entityId}/manual-payment-methods`, headers: owner.headers, payload: cryptoBody('xrpl', XRPL_ADDRESS, 'XRP') });
    const other = await memberWith(h, entityId, owner.headers, ['view', 'sign_documents']);
    const outsider = await userWithToken(h);
    const ctx: Ctx = { entityId, methodId: method.json().id, otherId: other.userId };
    newUsers.push(await h.createUser());
    for (const route of ROUTES) {
      const res = await h.inject({ method: route.method, url: route.url(ctx), headers: outsider.headers, payload: route.payload?.(ctx) as object });
      expect(`${route.name}: ${res.statusCode} ${res.json().code}`).toBe(`${route.name}: 404 ENTITY_NOT_FOUND`);
    }
    const users = await h.inject({ method: 'GET', url: `/entities/${entityId}/users`, headers: owner.headers });
    expect(users.json().total).toBe(2);
    const profile = await h.inject({ method: 'GET', url: `/entities/${entityId}/business-profile-a`, headers: owner.headers });
    expect(profile.json().code).toBe('BUSINESS_PROFILE_NOT_FOUND');
  });

  it('an API key and an admin (role read from the database) hold every permission on every entity', async () => {
    const admin = await h.createUser(undefined, undefined, 'admin');
    const adminHeaders = h.bearerHeaders(await h.tokenFor(admin));
    for (const headers of [h.keyHeaders(), adminHeaders]) {
      const { entityId, owner } = await entityOf(h);
      const method = await h.inject({ method: 'POST', url: `/entities/${entityId}/manual-payment-methods`, headers: owner.headers, payload: cryptoBody('xrpl', XRPL_ADDRESS, 'XRP') });
      const other = await memberWith(h, entityId, owner.headers, ['view', 'sign_documents']);
      const ctx: Ctx = { entityId, methodId: method.json().id, otherId: other.userId };
      newUsers.push(await h.createUser());
      for (const route of ROUTES) {
        const res = await h.inject({ method: route.method, url: route.url(ctx), headers, payload: route.payload?.(ctx) as object });
        expect(`${route.name}: ${res.statusCode}`).toBe(`${route.name}: ${route.ok}`);
      }
    }
  });

  it('a token minted while the user was an admin stops acting as admin once the stored role is user', async () => {
    const { entityId } = await entityOf(h);
    const formerAdmin = await h.createUser(undefined, undefined, 'admin');
    const token = await h.tokenFor(formerAdmin);
    expect((await h.inject({ method: 'GET', url: `/entities/${entityId}`, headers: h.bearerHeaders(token) })).statusCode).toBe(200);
    await h.container.users.setFields(h.tenant.tenantId, formerAdmin, { role: 'user' });
    const res = await h.inject({ method: 'GET', url: `/entities/${entityId}`, headers: h.bearerHeaders(token) });
    expect(res.statusCode).toBe(404);
  });
});
