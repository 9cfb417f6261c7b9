import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { decisionBody, eventBody, sendWebhook, sessionIdOf, startSession } from '../helpers/kyc.js';

let h: Harness;
beforeAll(async () => { h = await createHarness({ listen: true }); });
afterAll(async () => h.close());

it('counts', async () => {
  const userId = await h.createUser();
  const { kycId } = await startSession(h, userId);
  const sessionId = await sessionIdOf(h, kycId);
  const tenantId = h.tenant.tenantId;
  for (const action of ['started', 'submitted'] as const) await sendWebhook(h, '/kyc/callback/idv-a/event', eventBody(tenantId, kycId, sessionId, action));
  const seen: string[] = [];
  const orig = pg.Client.prototype.query;
  (pg.Client.prototype as any).query = function (q: any, ...rest: any[]) { const text = typeof q === 'string' ? q : q?.text ?? q?.name ?? ''; seen.push(String(text).replace(/\s+/g, ' ').slice(0, 160)); return (orig as any).call(this, q, ...rest); };
  const res = await sendWebhook(h, '/kyc/callback/idv-a/decision', decisionBody(tenantId, kycId, sessionId, 'approved'));
  (pg.Client.prototype as any).query = orig;
  expect(res.statusCode).toBe(201);
  console.log(seen.length + '\n' + seen.map((s, i) => `${i + 1}. ${s}`).join('\n'));
});
