import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../src/platform/events/outbox.js';
import { EVENT_PAYLOADS, payloadProblem } from '../../src/platform/events/payloads.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { outbox } from '../helpers/outbox.js';

/**
 * Every outbox event matches its type's payload schema (src/platform/events/payloads.ts):
 * appendEvent checks it before the insert, and this file drives a few flows and checks the
 * stored rows (after the JSON round trip) against the schemas.
 */
let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h.close());

describe('event payloads', () => {
  it('each event type has a schema', () => {
    expect(Object.keys(EVENT_PAYLOADS).sort()).toEqual([...EVENT_TYPES].sort());
  });

  it('a payload off its schema is refused', () => {
    expect(payloadProblem('user.created', { userId: 'u' })).not.toBeNull();
    expect(payloadProblem('user.created', { userId: 'u', email: 'a@example.com', extra: 1 })).not.toBeNull();
    expect(payloadProblem('user.created', { userId: 'u', email: 'a@example.com' })).toBeNull();
  });

  it('the rows the flows store match their schemas', async () => {
    const userId = await h.createUser();
    const kyc = await h.inject({ method: 'POST', url: '/kyc/kyc', headers: h.keyHeaders(), payload: { userId, provider: 'manual' } });
    expect(kyc.statusCode, kyc.body).toBe(201);
    const list = await outbox(h);
    const types = new Set(list.map((row) => row.type));
    expect(types).toContain('user.created');
    expect(types).toContain('kyc.created');
    for (const row of list) expect(payloadProblem(row.type as (typeof EVENT_TYPES)[number], row.payload), row.type).toBeNull();
  });
});
