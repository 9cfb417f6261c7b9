import { afterAll, beforeAll, describe } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { securityCases } from '../helpers/security.js';

let h: Harness;
let userId: string;
let kycId: string;
beforeAll(async () => {
  h = await createHarness();
  userId = await h.createUser();
  kycId = (await h.container.kyc.initiate(h.tenant.tenantId, { userId, provider: 'manual' }, { type: 'system', id: null })).kycId;
});
afterAll(async () => h.close());

const user = { bearer: 'user' } as const;
const keyOrUser = { apiKey: true, bearer: 'user' } as const;
const reviewer = { apiKey: true, bearer: 'admin' } as const;

describe('POST /kyc', () => securityCases(() => h, { method: 'POST', url: () => '/kyc', payload: () => ({}), accepts: user }));
describe('POST /kyc/idv-a/session', () => securityCases(() => h, { method: 'POST', url: () => '/kyc/idv-a/session', payload: () => ({}), accepts: user }));
describe('GET /kyc', () => securityCases(() => h, { method: 'GET', url: () => `/kyc?userId=${userId}`, accepts: keyOrUser }));
describe('GET /kyc/current/{kycId}', () => securityCases(() => h, { method: 'GET', url: () => `/kyc/current/${kycId}`, accepts: keyOrUser }));
describe('GET /kyc/current?kycId=', () => securityCases(() => h, { method: 'GET', url: () => `/kyc/current?kycId=${kycId}`, accepts: keyOrUser }));
describe('GET /kyc/attempts', () => securityCases(() => h, { method: 'GET', url: () => '/kyc/attempts', accepts: user }));
describe('GET /kyc/kycs', () => securityCases(() => h, { method: 'GET', url: () => '/kyc/kycs', accepts: reviewer }));
describe('POST /kyc/kyc', () =>
  securityCases(() => h, { method: 'POST', url: () => '/kyc/kyc', payload: () => ({ userId, provider: 'manual' }), accepts: reviewer }));
describe('PATCH /kyc/{kycId}', () =>
  securityCases(() => h, { method: 'PATCH', url: () => `/kyc/${kycId}`, payload: () => ({ level: 'basic' }), accepts: reviewer }));
describe('PUT /kyc/approve/{kycId}', () =>
  securityCases(() => h, { method: 'PUT', url: () => `/kyc/approve/${kycId}`, payload: () => ({ reason: 'sec' }), accepts: reviewer }));
describe('PUT /kyc/reject/{kycId}', () =>
  securityCases(() => h, { method: 'PUT', url: () => `/kyc/reject/${kycId}`, payload: () => ({ reason: 'sec' }), accepts: reviewer }));
describe('PUT /kyc/request-resubmission/{kycId}', () =>
  securityCases(() => h, { method: 'PUT', url: () => `/kyc/request-resubmission/${kycId}`, payload: () => ({ reason: 'sec' }), accepts: reviewer }));
describe('POST /kyc/idv-b/web3-challenge', () =>
  securityCases(() => h, {
    method: 'POST',
    url: () => '/kyc/idv-b/web3-challenge',
    payload: () => ({ address: '0x1111111111111111111111111111111111111111', chain: 'evm' }),
    accepts: user,
  }));
describe('POST /kyc/idv-b/regular-challenge', () => securityCases(() => h, { method: 'POST', url: () => '/kyc/idv-b/regular-challenge', accepts: user }));
