import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProviderError } from '../../src/platform/providers/errors.js';
import type { IdvEndpoint } from '../../src/providers/idv/http-client.js';
import { createIdvAAdapter } from '../../src/providers/idv/idv-a/http.js';
import { signBody } from '../../src/providers/idv/signature.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { configureIdv, idvEndpoint } from '../helpers/kyc.js';

let h: Harness;
let endpoint: IdvEndpoint;
const adapter = { 'idv-a': { createSession: (e: IdvEndpoint, request: ReturnType<typeof sessionRequest>) => createIdvAAdapter(e, h.tenant.tenantId).createSession(request) } };
beforeAll(async () => {
  h = await createHarness({ listen: true });
  endpoint = await idvEndpoint(h, h.tenant.tenantId, 'idv-a');
});
afterAll(async () => h.close());

const sessionRequest = () => ({ kycId: crypto.randomUUID(), callbackBaseUrl: `${h.baseUrl}/x`, flow: 'session' as const });
const request = sessionRequest;

async function post(headers: Record<string, string>, raw: string) {
  return fetch(`${h.baseUrl}/sandbox/idv-a/v1/sessions`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: raw });
}

describe('sandbox authentication (HMAC of the raw body under the client secret)', () => {
  it('401 without a signature, with a wrong one, for an unknown client, or for a body changed after signing', async () => {
    // idv-a's own protocol body (docs/providers.md).
    const raw = JSON.stringify({ verification: { vendorData: 'v', webhooks: { event: `${h.baseUrl}/x/e`, decision: `${h.baseUrl}/x/d` } } });
    const good = signBody(raw, endpoint.secret);
    expect((await post({ 'x-auth-client': endpoint.clientId }, raw)).status).toBe(401);
    expect((await post({ 'x-auth-client': endpoint.clientId, 'x-hmac-signature': 'ff'.repeat(32) }, raw)).status).toBe(401);
    expect((await post({ 'x-auth-client': crypto.randomUUID(), 'x-hmac-signature': good }, raw)).status).toBe(401);
    expect((await post({ 'x-hmac-signature': good }, raw)).status).toBe(401);
    expect((await post({ 'x-auth-client': endpoint.clientId, 'x-hmac-signature': good }, raw.replace('"v"', '"w"'))).status).toBe(401);
    expect((await post({ 'x-auth-client': endpoint.clientId, 'x-hmac-signature': good }, raw)).status).toBe(201);
  });

  it('a tenant configured for a real provider is not served by the sandbox', async () => {
    const t = await h.newTenant();
    await configureIdv(h, t.tenantId, 'idv-a', { baseUrl: 'https://idv-a.invalid/api', clientId: t.tenantId, webhookSecret: 'real-provider-secret-0001' });
    const forged = { ...endpoint, baseUrl: `${h.baseUrl}/sandbox/idv-a`, clientId: t.tenantId, secret: 'real-provider-secret-0001' };
    const error = await adapter['idv-a'].createSession(forged, request()).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as ProviderError).reason).toBe('unauthorized');
    // Pointing it back at the sandbox makes a fresh secret.
    await configureIdv(h, t.tenantId, 'idv-a', null);
    const back = await idvEndpoint(h, t.tenantId, 'idv-a');
    expect(back.baseUrl).toBe(`${h.baseUrl}/sandbox/idv-a`);
    expect(back.secret).not.toBe('real-provider-secret-0001');
    expect((await adapter['idv-a'].createSession(back, request())).url).toContain('/sandbox/idv-a/s/');
  });

  it('secrets of one provider do not open the other', async () => {
    const b = await idvEndpoint(h, h.tenant.tenantId, 'idv-b');
    const error = await adapter['idv-a'].createSession({ ...endpoint, secret: b.secret }, request()).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((error as ProviderError).reason).toBe('unauthorized');
  });
});
