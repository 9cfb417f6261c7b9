import { afterAll, beforeAll, describe } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { securityCases } from '../helpers/security.js';
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

describe('POST /entities', () => securityCases(() => h, { method: 'POST', url: () => '/entities', payload: () => entityBody({ userId: ownerId }), accepts }));
describe('GET /entities', () => securityCases(() => h, { method: 'GET', url: () => '/entities', accepts }));
describe('GET /entities/{id}', () => securityCases(() => h, { method: 'GET', url: () => `/entities/${entityId}`, accepts }));
describe('PUT /entities/{id}/metadata', () =>
  securityCases(() => h, { method: 'PUT', url: () => `/entities/${entityId}/metadata`, payload: () => ({ metadata: { a: 1 } }), accepts }));
describe('GET /entities/{id}/users', () => securityCases(() => h, { method: 'GET', url: () => `/entities/${entityId}/users`, accepts }));
describe('POST /entities/{id}/users', () =>
  securityCases(() => h, { method: 'POST', url: () => `/entities/${entityId}/users`, payload: () => ({ userId: memberId }), accepts }));
describe('DELETE /entities/{id}/users/{targetUserId}', () =>
  securityCases(() => h, { method: 'DELETE', url: () => `/entities/${entityId}/users/${memberId}`, accepts }));
describe('POST /entities/{id}/users/{targetUserId}/permissions', () =>
  securityCases(() => h, { method: 'POST', url: () => `/entities/${entityId}/users/${memberId}/permissions`, payload: () => ({ permission: 'invest' }), accepts }));
describe('DELETE /entities/{entityId}/users/{targetUserId}/permissions/{permission}', () =>
  securityCases(() => h, { method: 'DELETE', url: () => `/entities/${entityId}/users/${memberId}/permissions/view`, accepts }));
describe('POST /entities/{id}/manual-payment-methods', () =>
  securityCases(() => h, { method: 'POST', url: () => `/entities/${entityId}/manual-payment-methods`, payload: () => cryptoBody('xrpl', XRPL_ADDRESS, 'XRP'), accepts }));
describe('GET /entities/{id}/manual-payment-methods', () =>
  securityCases(() => h, { method: 'GET', url: () => `/entities/${entityId}/manual-payment-methods`, accepts }));
describe('GET /entities/{id}/manual-payment-methods/{methodId}', () =>
  securityCases(() => h, { method: 'GET', url: () => `/entities/${entityId}/manual-payment-methods/${methodId}`, accepts }));
describe('PATCH /entities/{id}/manual-payment-methods/{methodId}', () =>
  securityCases(() => h, { method: 'PATCH', url: () => `/entities/${entityId}/manual-payment-methods/${methodId}`, payload: () => ({ label: 'x' }), accepts }));
describe('POST /entities/{id}/business-profile-a', () =>
  securityCases(() => h, { method: 'POST', url: () => `/entities/${entityId}/business-profile-a`, payload: () => ({ tin: TIN }), accepts }));
describe('GET /entities/{id}/business-profile-a', () =>
  securityCases(() => h, { method: 'GET', url: () => `/entities/${entityId}/business-profile-a`, accepts }));
