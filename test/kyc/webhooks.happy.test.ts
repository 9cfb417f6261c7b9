import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { decideInSandbox, decisionBody, eventBody, sendWebhook, sessionIdOf, startSession } from '../helpers/kyc.js';
import { outbox } from '../helpers/outbox.js';
import { readUser, readKyc } from '../helpers/read.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness({ listen: true });
});
afterAll(async () => h.close());

const attempt = (kycId: string) => readKyc(h, kycId);

describe('idv-a webhooks', () => {
  it('events move the record to started and submitted, the decision to approved with the person and document', async () => {
    const userId = await h.createUser();
    const { kycId } = await startSession(h, userId);
    const sessionId = await sessionIdOf(h, kycId);
    const tenantId = h.tenant.tenantId;

    for (const action of ['started', 'submitted'] as const) {
      const res = await sendWebhook(h, '/kyc/callback/idv-a/event', eventBody(tenantId, kycId, sessionId, action));
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json()).toEqual({ received: true, applied: true, outcome: 'applied', status: action });
    }
    const res = await sendWebhook(h, '/kyc/callback/idv-a/decision', decisionBody(tenantId, kycId, sessionId, 'approved'));
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ applied: true, status: 'approved' });
    const detail = await attempt(kycId);
    expect(detail).toMatchObject({ status: 'approved', firstName: 'Ada', lastName: 'Lovelace', dateOfBirth: '1815-12-10', country: 'GB', documentType: 'PASSPORT' });
    expect(detail.history.at(-1)).toMatchObject({ from: 'submitted', to: 'approved', actor: { type: 'provider', id: 'idv-a' } });
    expect((await outbox(h, undefined, 'kyc.approved')).find((e) => e.payload.kycId === kycId)?.payload).toMatchObject({
      userId,
      from: 'submitted',
      to: 'approved',
      actor: { type: 'provider', id: 'idv-a' },
    });
    expect((await readUser(h, userId)).kycStatus).toBe('approved');
  });

  it("a delivery reads the provider settings' stamp once: the port that verified it handles it", async () => {
    const userId = await h.createUser();
    const { kycId } = await startSession(h, userId);
    const sessionId = await sessionIdOf(h, kycId);
    const settings = h.container.platform.providerSettings;
    const stamp = vi.spyOn(settings, 'stamp');
    try {
      const res = await sendWebhook(h, '/kyc/callback/idv-a/event', eventBody(h.tenant.tenantId, kycId, sessionId, 'started'));
      expect(res.statusCode, res.body).toBe(201);
      expect(stamp.mock.calls.filter(([, kind]) => kind === 'idv')).toHaveLength(1);
    } finally {
      stamp.mockRestore();
    }
  });

  it('a declined decision stores the reason and writes kyc.declined', async () => {
    const { kycId } = await startSession(h, await h.createUser());
    const sessionId = await sessionIdOf(h, kycId);
    const body = decisionBody(h.tenant.tenantId, kycId, sessionId, 'declined', { reason: 'Document is a photocopy' });
    expect((await sendWebhook(h, '/kyc/callback/idv-a/decision', body)).statusCode).toBe(201);
    expect(await attempt(kycId)).toMatchObject({ status: 'declined', reason: 'Document is a photocopy' });
    expect((await outbox(h, undefined, 'kyc.declined')).some((e) => e.payload.kycId === kycId)).toBe(true);
  });

  it('resubmission requested, then a new submission and an approval through the sandbox page', async () => {
    const { kycId, sessionUrl } = await startSession(h, await h.createUser());
    const first = await decideInSandbox(sessionUrl, { decision: 'resubmission_requested', reason: 'glare on the photo' });
    expect(first.status).toBe(200);
    expect(await attempt(kycId)).toMatchObject({ status: 'resubmission_requested', reason: 'glare on the photo' });
    const second = await decideInSandbox(sessionUrl, { decision: 'approved', country: 'IT' });
    expect(second.status).toBe(200);
    const detail = await attempt(kycId);
    expect(detail).toMatchObject({ status: 'approved', country: 'IT' });
    expect(detail.history.map((e) => e.to)).toEqual(['created', 'started', 'submitted', 'resubmission_requested', 'submitted', 'approved']);
  });

  it('a decline chosen on the sandbox page arrives as a signed decision', async () => {
    const { kycId, sessionUrl } = await startSession(h, await h.createUser());
    const res = await decideInSandbox(sessionUrl, { decision: 'declined', reason: 'face mismatch' });
    expect(res.html).toMatch(/decision: HTTP 201/);
    expect(await attempt(kycId)).toMatchObject({ status: 'declined', reason: 'face mismatch' });
  });
});
