import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { outbox } from '../helpers/outbox.js';
import { expectError } from '../helpers/security.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h.close());

async function claim(userId: string, tenant = h.tenant): Promise<string> {
  const res = await h.inject({ method: 'POST', url: '/accreditations', headers: h.keyHeaders(tenant), payload: { type: 'income', userId } });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().id;
}

describe('accreditation errors', () => {
  it('deciding twice is 409 and keeps the first decision', async () => {
    const id = await claim(await h.createUser());
    const first = await h.inject({ method: 'POST', url: `/accreditations/${id}/decision`, headers: h.keyHeaders(), payload: { decision: 'approved', reason: 'ok' } });
    expect(first.statusCode).toBe(201);
    for (const decision of ['approved', 'rejected']) {
      const again = await h.inject({ method: 'POST', url: `/accreditations/${id}/decision`, headers: h.keyHeaders(), payload: { decision, reason: 'again' } });
      expectError(again, 409, 'ACCREDITATION_ALREADY_DECIDED');
    }
    const list = await h.inject({ method: 'GET', url: `/accreditations?userId=${first.json().userId}`, headers: h.keyHeaders() });
    expect(list.json().data[0]).toMatchObject({ status: 'approved', reason: 'ok' });
    expect(list.json().data[0].history).toHaveLength(2);
    expect((await outbox(h, undefined, 'accreditation.decided')).filter((e) => e.payload.accreditationId === id)).toHaveLength(1);
  });

  it("404 for an unknown claim and for another tenant's claim", async () => {
    const other = await h.newTenant();
    const foreign = await claim(await h.createUser(other), other);
    for (const id of [randomUUID(), foreign]) {
      const res = await h.inject({ method: 'POST', url: `/accreditations/${id}/decision`, headers: h.keyHeaders(), payload: { decision: 'approved', reason: 'x' } });
      expectError(res, 404, 'ACCREDITATION_NOT_FOUND');
    }
    const list = await h.inject({ method: 'GET', url: `/accreditations?userId=${(await h.createUser(other))}`, headers: h.keyHeaders() });
    expectError(list, 404, 'USER_NOT_FOUND');
  });

  it('404 when a plain user claims for or lists another user, or the named user does not exist', async () => {
    const victim = await h.createUser();
    const intruder = h.bearerHeaders(await h.tokenFor(await h.createUser()));
    expectError(await h.inject({ method: 'POST', url: '/accreditations', headers: intruder, payload: { type: 'income', userId: victim } }), 404, 'USER_NOT_FOUND');
    expectError(await h.inject({ method: 'GET', url: `/accreditations?userId=${victim}`, headers: intruder }), 404, 'USER_NOT_FOUND');
    expectError(await h.inject({ method: 'POST', url: '/accreditations', headers: h.keyHeaders(), payload: { type: 'income', userId: randomUUID() } }), 404, 'USER_NOT_FOUND');
  });

  it('400 for an API key that names no user, and for malformed bodies and ids', async () => {
    expectError(await h.inject({ method: 'POST', url: '/accreditations', headers: h.keyHeaders(), payload: { type: 'income' } }), 400, 'USER_ID_REQUIRED');
    const id = await claim(await h.createUser());
    const cases: Array<[string, string, unknown]> = [
      ['POST', '/accreditations', { type: 'rich', userId: randomUUID() }],
      ['POST', '/accreditations', { type: 'income', documentIds: ['nope'] }],
      ['POST', '/accreditations', { type: 'income', status: 'approved' }],
      ['GET', '/accreditations', undefined],
      ['GET', '/accreditations?userId=x', undefined],
      ['POST', `/accreditations/${id}/decision`, { decision: 'maybe', reason: 'x' }],
      ['POST', `/accreditations/${id}/decision`, { decision: 'approved', reason: '' }],
      ['POST', '/accreditations/not-a-uuid/decision', { decision: 'approved', reason: 'x' }],
    ];
    for (const [method, url, payload] of cases) {
      const res = await h.inject({ method: method as 'GET', url, headers: h.keyHeaders(), payload: payload as object });
      expectError(res, 400, 'VALIDATION_FAILED');
    }
  });
});
