import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { http, idvSecret, sendWebhook } from '../helpers/kyc.js';
import { expectError } from '../helpers/security.js';
import { readKyc } from '../helpers/read.js';

let h: Harness;
let kycId: string;
let sessionId: string;
beforeAll(async () => {
  h = await createHarness({ listen: true });
  const userId = await h.createUser();
  const res = await http(h, 'POST', '/kyc/idv-b/regular-challenge', h.bearerHeaders(await h.tokenFor(userId)));
  kycId = res.json.kycId;
  sessionId = (res.json.sessionUrl as string).split('/').pop()!;
});
afterAll(async () => h.close());

const attempt = () => readKyc(h, kycId);
const result = (status: string) => ({ eventId: crypto.randomUUID(), sessionId, reference: kycId, status });

describe('POST /kyc/callback/idv-b security', () => {
  it('401 for an unknown, malformed or missing tenantId, whatever the signature', async () => {
    const secret = (await idvSecret(h, h.tenant.tenantId, 'idv-b'))!;
    for (const query of [`?tenantId=${crypto.randomUUID()}`, "?tenantId=x'--", '']) {
      const res = await sendWebhook(h, `/kyc/callback/idv-b${query}`, result('approved'), { secret });
      expectError(res, 401, 'WEBHOOK_TENANT_UNKNOWN');
    }
    const other = await h.newTenant();
    expectError(await sendWebhook(h, `/kyc/callback/idv-b?tenantId=${other.tenantId}`, result('approved'), { secret }), 401, 'WEBHOOK_TENANT_UNKNOWN');
    expect((await attempt()).status).toBe('created');
  });

  it('401 without a signature or with a wrong one; nothing changes', async () => {
    const url = `/kyc/callback/idv-b?tenantId=${h.tenant.tenantId}`;
    expectError(await sendWebhook(h, url, result('approved'), { provider: 'idv-b', signature: null }), 401, 'WEBHOOK_SIGNATURE_MISSING');
    expectError(await sendWebhook(h, url, result('approved'), { provider: 'idv-b', signature: '00'.repeat(32) }), 401, 'WEBHOOK_SIGNATURE_INVALID');
    // Signed with the tenant's idv-a secret: not the idv-b one.
    await http(h, 'POST', '/kyc', h.bearerHeaders(await h.tokenFor(await h.createUser())), {});
    const idvASecret = (await idvSecret(h, h.tenant.tenantId, 'idv-a'))!;
    expectError(await sendWebhook(h, url, result('approved'), { secret: idvASecret }), 401, 'WEBHOOK_SIGNATURE_INVALID');
    expect((await attempt()).status).toBe('created');
  });

  it('a replayed result changes nothing twice; a result after the decision does not undo it', async () => {
    const url = `/kyc/callback/idv-b?tenantId=${h.tenant.tenantId}`;
    const approved = result('approved');
    expect((await sendWebhook(h, url, approved, { provider: 'idv-b' })).json()).toMatchObject({ applied: true, status: 'approved' });
    expect((await sendWebhook(h, url, approved, { provider: 'idv-b' })).json()).toEqual({ received: true, applied: false, outcome: 'replay' });
    expect((await sendWebhook(h, url, result('started'), { provider: 'idv-b' })).json()).toMatchObject({ applied: false, status: 'approved' });
    expect((await sendWebhook(h, url, result('declined'), { provider: 'idv-b' })).json()).toMatchObject({ applied: false, status: 'approved' });
    const detail = await attempt();
    expect(detail.status).toBe('approved');
    expect(detail.history.filter((e) => e.to === 'approved')).toHaveLength(1);
  });
});
