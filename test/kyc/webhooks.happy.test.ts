import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { configureIdv, decideInSandbox, decisionBody, eventBody, idvSecret, sendWebhook, sessionIdOf, startSession } from '../helpers/kyc.js';
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

  it("a delivery reads the provider settings' stamp once, in its claim's statement: the port that verified it handles it", async () => {
    const userId = await h.createUser();
    const { kycId } = await startSession(h, userId);
    const sessionId = await sessionIdOf(h, kycId);
    expect((await sendWebhook(h, '/kyc/callback/idv-a/event', eventBody(h.tenant.tenantId, kycId, sessionId, 'started'))).statusCode).toBe(201);
    const settings = h.container.platform.providerSettings;
    const stamp = vi.spyOn(settings, 'stamp');
    const stampRead = vi.spyOn(settings, 'stampRead');
    try {
      const res = await sendWebhook(h, '/kyc/callback/idv-a/event', eventBody(h.tenant.tenantId, kycId, sessionId, 'submitted'));
      expect(res.statusCode, res.body).toBe(201);
      expect(stamp.mock.calls.filter(([, kind]) => kind === 'idv')).toHaveLength(0);
      expect(stampRead.mock.calls.filter(([, , kind]) => kind === 'idv')).toHaveLength(1);
    } finally {
      stamp.mockRestore();
      stampRead.mockRestore();
    }
  });

  /**
   * A started attempt whose webhooks this instance has handled (its port for the tenant made and
   * kept), then the other instance of `other` points the tenant at a real provider signing with
   * `secret`: only that instance's ports know. Sandbox settings again afterwards.
   */
  async function rotatedElsewhere(secret: string, run: (attempt: { tenantId: string; kycId: string; sessionId: string; oldSecret: string }) => Promise<void>) {
    const other = await createHarness();
    try {
      const tenantId = h.tenant.tenantId;
      const { kycId } = await startSession(h, await h.createUser());
      const sessionId = await sessionIdOf(h, kycId);
      const oldSecret = (await idvSecret(h, tenantId))!;
      expect((await sendWebhook(h, '/kyc/callback/idv-a/event', eventBody(tenantId, kycId, sessionId, 'started'))).statusCode).toBe(201);
      await configureIdv(other, tenantId, 'idv-a', { baseUrl: 'https://idv-a.example', clientId: 'rotated-client', webhookSecret: secret });
      await run({ tenantId, kycId, sessionId, oldSecret });
    } finally {
      await configureIdv(h, h.tenant.tenantId, 'idv-a', null);
      await other.close();
    }
  }

  it('settings changed by another instance: a delivery signed with the old secret is refused at its claim, one with the new secret applied', async () => {
    await rotatedElsewhere('rotated-webhook-secret', async ({ tenantId, kycId, sessionId, oldSecret }) => {
      const decision = decisionBody(tenantId, kycId, sessionId, 'approved');
      const refused = await sendWebhook(h, '/kyc/callback/idv-a/decision', decision, { secret: oldSecret });
      expect(refused.statusCode, refused.body).toBe(401);
      expect(refused.json()).toMatchObject({ code: 'WEBHOOK_SIGNATURE_INVALID' });
      expect(await attempt(kycId)).toMatchObject({ status: 'started' });
      const applied = await sendWebhook(h, '/kyc/callback/idv-a/decision', decision, { secret: 'rotated-webhook-secret' });
      expect(applied.statusCode, applied.body).toBe(201);
      expect(applied.json()).toMatchObject({ applied: true, status: 'approved' });
      expect(await attempt(kycId)).toMatchObject({ status: 'approved' });
    });
  });

  it('settings changed by another instance: the first delivery signed with the new secret is applied, not refused by the port made before', async () => {
    await rotatedElsewhere('rotated-again-secret', async ({ tenantId, kycId, sessionId }) => {
      const applied = await sendWebhook(h, '/kyc/callback/idv-a/decision', decisionBody(tenantId, kycId, sessionId, 'approved'), { secret: 'rotated-again-secret' });
      expect(applied.statusCode, applied.body).toBe(201);
      expect(await attempt(kycId)).toMatchObject({ status: 'approved' });
    });
  });

  it('settings that keep moving under a delivery: 503 PROVIDER_UNAVAILABLE after five checks, nothing claimed or applied; the retry is applied', async () => {
    const tenantId = h.tenant.tenantId;
    const { kycId } = await startSession(h, await h.createUser());
    const sessionId = await sessionIdOf(h, kycId);
    expect((await sendWebhook(h, '/kyc/callback/idv-a/event', eventBody(tenantId, kycId, sessionId, 'started'))).statusCode).toBe(201);
    const settings = h.container.platform.providerSettings;
    const original = settings.stampRead.bind(settings);
    // Each claim reads a stamp other than the port's (the row of a provider the tenant holds none of): as if they changed every time.
    const stampRead = vi.spyOn(settings, 'stampRead').mockImplementation((db, t, kind) => original(db, t, kind, 'no-such-provider'));
    const decision = decisionBody(tenantId, kycId, sessionId, 'approved');
    try {
      const res = await sendWebhook(h, '/kyc/callback/idv-a/decision', decision);
      expect(res.statusCode, res.body).toBe(503);
      expect(res.json()).toMatchObject({ code: 'PROVIDER_UNAVAILABLE' });
      expect(stampRead.mock.calls.filter(([, , kind]) => kind === 'idv')).toHaveLength(5);
    } finally {
      stampRead.mockRestore();
    }
    expect(await attempt(kycId)).toMatchObject({ status: 'started' });
    const retry = await sendWebhook(h, '/kyc/callback/idv-a/decision', decision);
    expect(retry.statusCode, retry.body).toBe(201);
    expect(retry.json()).toMatchObject({ applied: true, status: 'approved' });
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
