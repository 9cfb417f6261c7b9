import { afterAll, beforeAll, expect } from 'vitest';
import { createHarness, type Harness, type TestTenant } from '../helpers/harness.js';
import { routeCases } from '../helpers/security.js';

let h: Harness;
let userId: string;
let kycId: string;
beforeAll(async () => {
  h = await createHarness();
  userId = await h.createUser();
  kycId = (await h.container.kyc.initiate({ tenantId: h.tenant.tenantId, privileged: true, actor: { type: 'system', id: null } }, { userId, provider: 'manual' })).kycId;
});
afterAll(async () => h.close());

const user = { bearer: 'user' } as const;
const keyOrUser = { apiKey: true, bearer: 'user' } as const;
const reviewer = { apiKey: true, bearer: 'admin' } as const;

/** A manual KYC record of another tenant; afterwards it must still be `created`. */
let foreignKyc: { tenant: TestTenant; kycId: string } | undefined;
async function otherTenantsKyc(): Promise<string> {
  const tenant = await h.newTenant();
  const owner = await h.createUser(tenant);
  const { kycId: id } = await h.container.kyc.initiate({ tenantId: tenant.tenantId, privileged: true, actor: { type: 'system', id: null } }, { userId: owner, provider: 'manual' });
  foreignKyc = { tenant, kycId: id };
  return id;
}
async function foreignKycUnchanged(): Promise<void> {
  const res = await h.inject({ method: 'GET', url: `/kyc/current/${foreignKyc!.kycId}`, headers: h.keyHeaders(foreignKyc!.tenant) });
  expect(res.json()).toMatchObject({ status: 'created', level: 'basic' });
}
const foreignCase = (path: (id: string) => string) => ({
  foreign: async () => path(await otherTenantsKyc()),
  unchanged: foreignKycUnchanged,
});

routeCases(() => h, 'POST /kyc', { url: () => '/kyc', payload: () => ({}), accepts: user });
routeCases(() => h, 'POST /kyc/idv-a/session', { url: () => '/kyc/idv-a/session', payload: () => ({}), accepts: user });
routeCases(() => h, 'GET /kyc', { url: () => `/kyc?userId=${userId}`, accepts: keyOrUser });
routeCases(() => h, 'GET /kyc/current/{kycId}', { url: () => `/kyc/current/${kycId}`, accepts: keyOrUser, ...foreignCase((id) => `/kyc/current/${id}`) });
routeCases(() => h, 'GET /kyc/current', { url: () => `/kyc/current?kycId=${kycId}`, accepts: keyOrUser });
routeCases(() => h, 'GET /kyc/attempts', { url: () => '/kyc/attempts', accepts: user });
routeCases(() => h, 'GET /kyc/kycs', { url: () => '/kyc/kycs', accepts: reviewer });
routeCases(() => h, 'POST /kyc/kyc', { url: () => '/kyc/kyc', payload: () => ({ userId, provider: 'manual' }), accepts: reviewer });
routeCases(() => h, 'PATCH /kyc/{kycId}', { url: () => `/kyc/${kycId}`, payload: () => ({ level: 'basic' }), accepts: reviewer, ...foreignCase((id) => `/kyc/${id}`) });
routeCases(() => h, 'PUT /kyc/approve/{kycId}', { url: () => `/kyc/approve/${kycId}`, payload: () => ({ reason: 'sec' }), accepts: reviewer, ...foreignCase((id) => `/kyc/approve/${id}`) });
routeCases(() => h, 'PUT /kyc/reject/{kycId}', { url: () => `/kyc/reject/${kycId}`, payload: () => ({ reason: 'sec' }), accepts: reviewer, ...foreignCase((id) => `/kyc/reject/${id}`) });
routeCases(() => h, 'PUT /kyc/request-resubmission/{kycId}', { url: () => `/kyc/request-resubmission/${kycId}`, payload: () => ({ reason: 'sec' }), accepts: reviewer, ...foreignCase((id) => `/kyc/request-resubmission/${id}`) });
routeCases(() => h, 'POST /kyc/idv-b/web3-challenge', {
    url: () => '/kyc/idv-b/web3-challenge',
    payload: () => ({ address: '0x1111111111111111111111111111111111111111', chain: 'evm' }),
    accepts: user,
  });
routeCases(() => h, 'POST /kyc/idv-b/regular-challenge', { url: () => '/kyc/idv-b/regular-challenge', accepts: user });
