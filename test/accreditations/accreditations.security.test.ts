import { afterAll, beforeAll, describe } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { securityCases } from '../helpers/security.js';

let h: Harness;
let userId: string;
let claimId: string;
beforeAll(async () => {
  h = await createHarness();
  userId = await h.createUser();
  const res = await h.inject({ method: 'POST', url: '/accreditations', headers: h.keyHeaders(), payload: { type: 'income', userId } });
  claimId = res.json().id;
});
afterAll(async () => h.close());

describe('POST /accreditations', () =>
  securityCases(() => h, { method: 'POST', url: () => '/accreditations', payload: () => ({ type: 'income', userId }), accepts: { apiKey: true, bearer: 'user' } }));
describe('GET /accreditations', () =>
  securityCases(() => h, { method: 'GET', url: () => `/accreditations?userId=${userId}`, accepts: { apiKey: true, bearer: 'user' } }));
describe('POST /accreditations/{id}/decision', () =>
  securityCases(() => h, {
    method: 'POST',
    url: () => `/accreditations/${claimId}/decision`,
    payload: () => ({ decision: 'approved', reason: 'sec' }),
    accepts: { apiKey: true, bearer: 'admin' },
  }));
