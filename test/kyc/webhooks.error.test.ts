import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { decisionBody, eventBody, sendWebhook, sessionIdOf, startSession } from '../helpers/kyc.js';
import { expectError } from '../helpers/security.js';
import { readKyc } from '../helpers/read.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness({ listen: true });
});
afterAll(async () => h.close());

const DAY = 24 * 60 * 60 * 1000;
const attempt = (kycId: string) => readKyc(h, kycId);

describe('malformed webhooks (correctly signed) are 400 and change nothing', () => {
  it('bad JSON, a missing field, an unknown status', async () => {
    const { kycId } = await startSession(h, await h.createUser());
    const sessionId = await sessionIdOf(h, kycId);
    const tenantId = h.tenant.tenantId;
    const good = decisionBody(tenantId, kycId, sessionId, 'approved');
    // Unparsable JSON names no tenant, so no secret can check it: 401.
    expectError(await sendWebhook(h, '/kyc/callback/idv-a/decision', undefined, { raw: '{"verification":' }), 401, 'WEBHOOK_TENANT_UNKNOWN');
    const missing = await sendWebhook(h, '/kyc/callback/idv-a/decision', { ...good, verification: { ...good.verification, id: undefined } });
    expectError(missing, 400, 'VALIDATION_FAILED');
    expect(missing.json().message).toContain('body.verification.id is required');
    const unknownStatus = await sendWebhook(h, '/kyc/callback/idv-a/decision', { ...good, verification: { ...good.verification, status: 'maybe' } });
    expectError(unknownStatus, 400, 'VALIDATION_FAILED');
    const badEvent = await sendWebhook(h, '/kyc/callback/idv-a/event', { ...eventBody(tenantId, kycId, sessionId, 'started'), action: 'finished' });
    expectError(badEvent, 400, 'VALIDATION_FAILED');
    expect((await attempt(kycId)).status).toBe('created');
  });

  it('a webhook naming an unknown session is acknowledged and ignored', async () => {
    const { kycId } = await startSession(h, await h.createUser());
    const res = await sendWebhook(h, '/kyc/callback/idv-a/decision', decisionBody(h.tenant.tenantId, kycId, randomUUID(), 'approved'));
    expect(res.statusCode).toBe(201);
    expect(res.json()).toEqual({ received: true, applied: false, outcome: 'ignored: unknown session' });
    const unknownRecord = await sendWebhook(h, '/kyc/callback/idv-a/decision', decisionBody(h.tenant.tenantId, randomUUID(), randomUUID(), 'approved'));
    expect(unknownRecord.json()).toMatchObject({ applied: false, outcome: 'ignored: unknown session' });
    expect((await attempt(kycId)).status).toBe('created');
  });

  it('a decision for a session that expired is ignored: expired stays', async () => {
    const { kycId } = await startSession(h, await h.createUser());
    const sessionId = await sessionIdOf(h, kycId);
    h.clock.advance(7 * DAY);
    const res = await sendWebhook(h, '/kyc/callback/idv-a/decision', decisionBody(h.tenant.tenantId, kycId, sessionId, 'approved'));
    expect(res.json()).toMatchObject({ applied: false, outcome: 'ignored: expired cannot move to approved', status: 'expired' });
    expect((await attempt(kycId)).status).toBe('expired');
  });
});
