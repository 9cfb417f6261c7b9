import { afterAll, beforeAll, expect } from 'vitest';
import { createHarness, type Harness, type TestTenant } from '../helpers/harness.js';
import { routeCases } from '../helpers/security.js';

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

let foreignClaim: { tenant: TestTenant; userId: string; id?: string } | undefined;

routeCases(() => h, 'POST /accreditations', { url: () => '/accreditations', payload: () => ({ type: 'income', userId }), accepts: { apiKey: true, bearer: 'user' } });
routeCases(() => h, 'GET /accreditations', { url: () => `/accreditations?userId=${userId}`, accepts: { apiKey: true, bearer: 'user' } });
routeCases(() => h, 'GET /accreditations/pending', { url: () => '/accreditations/pending', accepts: { apiKey: true, bearer: 'admin' } });
routeCases(() => h, 'POST /accreditations/{id}/decision', {
    url: () => `/accreditations/${claimId}/decision`,
    payload: () => ({ decision: 'approved', reason: 'sec' }),
    accepts: { apiKey: true, bearer: 'admin' },
    foreign: async () => {
      const other = await h.newTenant();
      foreignClaim = { tenant: other, userId: await h.createUser(other) };
      const res = await h.inject({ method: 'POST', url: '/accreditations', headers: h.keyHeaders(other), payload: { type: 'income', userId: foreignClaim.userId } });
      foreignClaim.id = res.json().id;
      return `/accreditations/${foreignClaim.id}/decision`;
    },
    unchanged: async () => {
      const { tenant, userId: owner, id } = foreignClaim!;
      const res = await h.inject({ method: 'GET', url: `/accreditations?userId=${owner}`, headers: h.keyHeaders(tenant) });
      expect(res.json().data.find((c: { id: string }) => c.id === id)).toMatchObject({ status: 'pending' });
    },
  });
