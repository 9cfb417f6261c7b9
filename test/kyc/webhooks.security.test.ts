import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signBody } from '../../src/providers/idv/signature.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { decisionBody, eventBody, idvSecret, sendWebhook, sessionIdOf, startSession } from '../helpers/kyc.js';
import { outbox } from '../helpers/outbox.js';
import { expectError } from '../helpers/security.js';
import { readUser, readKyc } from '../helpers/read.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness({ listen: true });
});
afterAll(async () => h.close());

const attempt = (kycId: string) => readKyc(h, kycId);

async function freshSession() {
  const userId = await h.createUser();
  const { kycId } = await startSession(h, userId);
  return { userId, kycId, sessionId: await sessionIdOf(h, kycId), tenantId: h.tenant.tenantId };
}

describe('forged webhooks: 401, and nothing changes', () => {
  it('without a signature, with a wrong one, with a truncated one, or signed with another tenant secret', async () => {
    const { kycId, sessionId, tenantId } = await freshSession();
    const body = decisionBody(tenantId, kycId, sessionId, 'approved');
    const raw = JSON.stringify(body);
    const other = await h.newTenant();
    await startSession(h, await h.createUser(other), other); // gives the other tenant a secret
    const otherSecret = (await idvSecret(h, other.tenantId, 'idv-a'))!;
    const right = signBody(raw, (await idvSecret(h, tenantId, 'idv-a'))!);

    expectError(await sendWebhook(h, '/kyc/callback/idv-a/decision', body, { signature: null }), 401, 'WEBHOOK_SIGNATURE_MISSING');
    expectError(await sendWebhook(h, '/kyc/callback/idv-a/decision', body, { signature: '' }), 401, 'WEBHOOK_SIGNATURE_MISSING');
    expectError(await sendWebhook(h, '/kyc/callback/idv-a/decision', body, { signature: 'a'.repeat(64) }), 401, 'WEBHOOK_SIGNATURE_INVALID');
    expectError(await sendWebhook(h, '/kyc/callback/idv-a/decision', body, { signature: right.slice(0, 63) }), 401, 'WEBHOOK_SIGNATURE_INVALID');
    expectError(await sendWebhook(h, '/kyc/callback/idv-a/decision', body, { secret: otherSecret }), 401, 'WEBHOOK_SIGNATURE_INVALID');
    // The signature of another body (a body altered after signing).
    const altered = decisionBody(tenantId, kycId, sessionId, 'approved', { reason: 'changed' });
    expectError(await sendWebhook(h, '/kyc/callback/idv-a/decision', altered, { signature: right }), 401, 'WEBHOOK_SIGNATURE_INVALID');
    // An event, equally.
    expectError(await sendWebhook(h, '/kyc/callback/idv-a/event', eventBody(tenantId, kycId, sessionId, 'started'), { signature: 'ab' }), 401, 'WEBHOOK_SIGNATURE_INVALID');

    const detail = await attempt(kycId);
    expect(detail.status).toBe('created');
    expect(detail.history).toHaveLength(1);
    expect(await h.container.kycWebhooks.authenticate('idv-a', tenantId, { rawBody: raw, headers: { 'x-hmac-signature': right } })).toMatchObject({ tenantId });
  });

  it('a tenant named in vendorData that is unknown or has no secret is 401', async () => {
    const { kycId, sessionId } = await freshSession();
    const stranger = await h.newTenant();
    for (const tenantId of [crypto.randomUUID(), stranger.tenantId]) {
      const res = await sendWebhook(h, '/kyc/callback/idv-a/decision', decisionBody(tenantId, kycId, sessionId, 'approved'), { secret: 'guess' });
      expectError(res, 401, 'WEBHOOK_TENANT_UNKNOWN');
    }
    const res = await sendWebhook(h, '/kyc/callback/idv-a/decision', { verification: { vendorData: "x' or 1=1" } }, { secret: 'guess' });
    expectError(res, 401, 'WEBHOOK_TENANT_UNKNOWN');
  });

  it('signature hex is compared case-insensitively', async () => {
    const { kycId, sessionId, tenantId } = await freshSession();
    const body = eventBody(tenantId, kycId, sessionId, 'started');
    const raw = JSON.stringify(body);
    const sig = signBody(raw, (await idvSecret(h, tenantId, 'idv-a'))!).toUpperCase();
    expect((await sendWebhook(h, '/kyc/callback/idv-a/event', body, { signature: sig })).statusCode).toBe(201);
  });
});

describe('replayed webhooks change nothing twice', () => {
  it('the same decision delivered three times: one transition, one event, one audit entry', async () => {
    const { kycId, sessionId, tenantId } = await freshSession();
    const body = decisionBody(tenantId, kycId, sessionId, 'approved');
    const results = [];
    for (let i = 0; i < 3; i++) results.push((await sendWebhook(h, '/kyc/callback/idv-a/decision', body)).json());
    expect(results[0]).toMatchObject({ applied: true });
    expect(results[1]).toEqual({ received: true, applied: false, outcome: 'replay' });
    expect(results[2]).toEqual({ received: true, applied: false, outcome: 'replay' });
    const detail = await attempt(kycId);
    expect(detail.history.filter((e) => e.to === 'approved')).toHaveLength(1);
    expect((await outbox(h, undefined, 'kyc.approved')).filter((e) => e.payload.kycId === kycId)).toHaveLength(1);
  });

  it('the same decision re-sent with a new timestamp (a new body) is acknowledged as already applied', async () => {
    const { kycId, sessionId, tenantId } = await freshSession();
    await sendWebhook(h, '/kyc/callback/idv-a/decision', decisionBody(tenantId, kycId, sessionId, 'approved'));
    const again = await sendWebhook(h, '/kyc/callback/idv-a/decision', decisionBody(tenantId, kycId, sessionId, 'approved', { decisionTime: '2030-01-01T00:00:00Z' }));
    expect(again.json()).toMatchObject({ applied: false, outcome: 'ignored: already approved' });
    expect((await attempt(kycId)).history.filter((e) => e.to === 'approved')).toHaveLength(1);
  });

  it('parallel deliveries of one webhook apply it once', async () => {
    const { kycId, sessionId, tenantId } = await freshSession();
    const body = decisionBody(tenantId, kycId, sessionId, 'declined');
    const results = await Promise.all(Array.from({ length: 5 }, () => sendWebhook(h, '/kyc/callback/idv-a/decision', body)));
    expect(results.map((r) => r.statusCode)).toEqual([201, 201, 201, 201, 201]);
    expect(results.filter((r) => r.json().applied)).toHaveLength(1);
    expect((await attempt(kycId)).history.filter((e) => e.to === 'declined')).toHaveLength(1);
  });
});

describe('out-of-order webhooks never undo a decision', () => {
  it('events arriving after the decision are acknowledged and ignored', async () => {
    const { kycId, sessionId, tenantId } = await freshSession();
    await sendWebhook(h, '/kyc/callback/idv-a/decision', decisionBody(tenantId, kycId, sessionId, 'approved'));
    for (const action of ['started', 'submitted'] as const) {
      const res = await sendWebhook(h, '/kyc/callback/idv-a/event', eventBody(tenantId, kycId, sessionId, action));
      expect(res.statusCode).toBe(201);
      expect(res.json()).toMatchObject({ applied: false, outcome: `ignored: approved cannot move to ${action}`, status: 'approved' });
    }
    expect((await attempt(kycId)).status).toBe('approved');
    expect((await readUser(h, (await attempt(kycId)).userId)).kycStatus).toBe('approved');
  });

  it('a contradicting later decision (declined after approved) is ignored', async () => {
    const { kycId, sessionId, tenantId } = await freshSession();
    await sendWebhook(h, '/kyc/callback/idv-a/decision', decisionBody(tenantId, kycId, sessionId, 'approved'));
    const res = await sendWebhook(h, '/kyc/callback/idv-a/decision', decisionBody(tenantId, kycId, sessionId, 'declined'));
    expect(res.json()).toMatchObject({ applied: false, outcome: 'ignored: approved cannot move to declined' });
    expect((await attempt(kycId)).status).toBe('approved');
  });

  it('"started" arriving after "submitted" does not move the record back', async () => {
    const { kycId, sessionId, tenantId } = await freshSession();
    await sendWebhook(h, '/kyc/callback/idv-a/event', eventBody(tenantId, kycId, sessionId, 'submitted'));
    const res = await sendWebhook(h, '/kyc/callback/idv-a/event', eventBody(tenantId, kycId, sessionId, 'started'));
    expect(res.json()).toMatchObject({ applied: false, outcome: 'ignored: submitted cannot move to started' });
    expect((await attempt(kycId)).status).toBe('submitted');
  });

  it("a webhook naming one tenant's session under another tenant's vendorData does not reach it", async () => {
    const { kycId, sessionId } = await freshSession();
    const other = await h.newTenant();
    await startSession(h, await h.createUser(other), other);
    const res = await sendWebhook(h, '/kyc/callback/idv-a/decision', decisionBody(other.tenantId, kycId, sessionId, 'approved'), { tenant: other });
    expect(res.json()).toMatchObject({ applied: false, outcome: 'ignored: unknown session' });
    expect((await attempt(kycId)).status).toBe('created');
  });
});
