import { createHash } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inboundWebhooks } from '../../src/platform/providers/table.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { decisionBody, http, sendWebhook, sessionIdOf, startSession } from '../helpers/kyc.js';
import { readKyc } from '../helpers/read.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness({ listen: true });
});
afterAll(async () => h.close());

const attempt = (kycId: string) => readKyc(h, kycId);

/** The raw bytes kept with a delivery in the one inbound-webhook table, by the provider's event id. */
async function storedRaw(provider: 'idv-a' | 'idv-b', eventId: string): Promise<string[]> {
  const rows = await h.database.db
    .select({ rawBody: inboundWebhooks.rawBody })
    .from(inboundWebhooks)
    .where(and(eq(inboundWebhooks.tenantId, h.tenant.tenantId), eq(inboundWebhooks.kind, 'idv'), eq(inboundWebhooks.provider, provider), eq(inboundWebhooks.eventId, eventId)));
  return rows.map((r) => Buffer.from(r.rawBody ?? '', 'base64').toString('utf8'));
}
/** idv-a deliveries carry no event id: they are known by the SHA-256 of their bytes. */
const digestId = (raw: string) => `sha256:${createHash('sha256').update(raw).digest('hex')}`;

describe('signed webhooks whose text PostgreSQL cannot store as sent', () => {
  it('an idv-a decision with NUL in documentType and reason is applied with the text cleaned; the raw body is kept', async () => {
    const { kycId } = await startSession(h, await h.createUser());
    const sessionId = await sessionIdOf(h, kycId);
    const body = decisionBody(h.tenant.tenantId, kycId, sessionId, 'declined', {
      reason: 'blurred\u0000 photo',
      document: { country: 'GB', type: 'PASS\u0000PORT' },
    });
    const raw = JSON.stringify(body);
    expect(raw).toContain('\\u0000');
    const res = await sendWebhook(h, '/kyc/callback/idv-a/decision', body, { raw });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ applied: true, status: 'declined' });
    expect(await attempt(kycId)).toMatchObject({ status: 'declined', reason: 'blurred photo', documentType: 'PASSPORT' });
    expect(await storedRaw('idv-a', digestId(raw))).toEqual([raw]);
    // The provider's retry of the same message is a replay: nothing changes twice.
    expect((await sendWebhook(h, '/kyc/callback/idv-a/decision', body, { raw })).json()).toMatchObject({ outcome: 'replay' });
  });

  it('an idv-b result with NUL and an unpaired surrogate is applied, not lost', async () => {
    const res0 = await http(h, 'POST', '/kyc/idv-b/regular-challenge', h.bearerHeaders(await h.tokenFor(await h.createUser())), {});
    expect(res0.status, res0.text).toBe(201);
    const kycId: string = res0.json.kycId;
    const sessionId = (res0.json.sessionUrl as string).split('/').pop()!;
    const eventId = crypto.randomUUID();
    const raw = `{"eventId":"${eventId}","sessionId":"${sessionId}","reference":"${kycId}","status":"declined","reason":"fake\\u0000 \\ud800id","document":{"type":"ID\\u0000CARD"}}`;
    const res = await sendWebhook(h, `/kyc/callback/idv-b?tenantId=${h.tenant.tenantId}`, undefined, { provider: 'idv-b', raw });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ applied: true, status: 'declined' });
    expect(await attempt(kycId)).toMatchObject({ status: 'declined', reason: 'fake \uFFFDid', documentType: 'IDCARD' });
    expect(await storedRaw('idv-b', eventId)).toEqual([raw]);
  });

  it('an unsigned webhook with NUL is still a 401 and changes nothing', async () => {
    const { kycId } = await startSession(h, await h.createUser());
    const sessionId = await sessionIdOf(h, kycId);
    const body = decisionBody(h.tenant.tenantId, kycId, sessionId, 'approved', { reason: '\u0000' });
    const res = await sendWebhook(h, '/kyc/callback/idv-a/decision', body, { signature: null });
    expect(res.statusCode).toBe(401);
    expect((await attempt(kycId)).status).toBe('created');
  });
});
