import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IdvEndpoint } from '../../src/providers/idv/http-client.js';
import { createIdvAAdapter } from '../../src/providers/idv/idv-a/http.js';
import { createIdvBAdapter } from '../../src/providers/idv/idv-b/http.js';
import { providerSettings } from '../../src/platform/provider-settings/table.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { idvEndpoint } from '../helpers/kyc.js';

/** The idv port's contract, run with the HTTP adapter against the built-in sandbox. */
let h: Harness;
let endpointA: IdvEndpoint;
let endpointB: IdvEndpoint;
beforeAll(async () => {
  h = await createHarness({ listen: true });
  endpointA = await idvEndpoint(h, h.tenant.tenantId, 'idv-a');
  endpointB = await idvEndpoint(h, h.tenant.tenantId, 'idv-b');
});
afterAll(async () => h.close());

describe('idv port contract (HTTP adapter against the sandbox)', () => {
  it('the default endpoint of a tenant is the sandbox under PUBLIC_BASE_URL, with a generated secret kept sealed', async () => {
    expect(endpointA).toMatchObject({ provider: 'idv-a', baseUrl: `${h.baseUrl}/sandbox/idv-a`, clientId: h.tenant.tenantId });
    expect(endpointA.secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(endpointB.secret).not.toBe(endpointA.secret);
    // Stable across calls, and not stored in clear.
    expect((await idvEndpoint(h, h.tenant.tenantId, 'idv-a')).secret).toBe(endpointA.secret);
    const rows = await h.database.db
      .select()
      .from(providerSettings)
      .where(and(eq(providerSettings.tenantId, h.tenant.tenantId), eq(providerSettings.kind, 'idv')));
    expect(rows.map((r) => r.provider).sort()).toEqual(['idv-a', 'idv-b']);
    const sealed = JSON.stringify(rows);
    expect(sealed).not.toContain(endpointA.secret);
    expect(sealed).toContain('v1.');
  });

  it('idv-a: creates a session whose URL opens the person-facing page', async () => {
    const session = await createIdvAAdapter(endpointA, h.tenant.tenantId).createSession({
      kycId: crypto.randomUUID(),
      callbackBaseUrl: `${h.baseUrl}/nowhere`,
      flow: 'session',
      person: { firstName: 'Ada' },
    });
    expect(session.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(session.url).toBe(`${h.baseUrl}/sandbox/idv-a/s/${session.sessionId}`);
    const page = await fetch(session.url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const html = await page.text();
    for (const word of ['Approve', 'Decline', 'Request resubmission']) expect(html).toContain(word);
    expect(html).toContain(`/sandbox/idv-a/s/${session.sessionId}`);
  });

  it('idv-b: creates web3 and regular sessions; the web3 page shows the message to sign', async () => {
    const web3 = await createIdvBAdapter(endpointB, h.tenant.tenantId).createSession({
      kycId: crypto.randomUUID(),
      callbackBaseUrl: `${h.baseUrl}/nowhere`,
      flow: 'web3',
      wallet: { chain: 'evm', address: '0x52908400098527886E0F7030069857D2E4169EE7', message: 'sign me <please>' },
    });
    const html = await (await fetch(web3.url)).text();
    expect(html).toContain('sign me &lt;please&gt;');
    expect(html).not.toContain('<please>');
    const regular = await createIdvBAdapter(endpointB, h.tenant.tenantId).createSession({ kycId: crypto.randomUUID(), callbackBaseUrl: `${h.baseUrl}/nowhere`, flow: 'regular' });
    expect(regular.url).toBe(`${h.baseUrl}/sandbox/idv-b/s/${regular.sessionId}`);
  });

  it("the sandboxes' protocols stay out of OpenAPI (only the tenant-facing faucets are in); the callbacks are documented with their signature scheme", async () => {
    const doc = (await h.inject({ method: 'GET', url: '/openapi.json' })).json();
    const sandboxPaths = Object.keys(doc.paths).filter((p) => p.startsWith('/sandbox'));
    const faucets = sandboxPaths.filter((p) => Object.values(doc.paths[p] as Record<string, { tags?: string[] }>).every((op) => op.tags?.includes('Sandbox faucets')));
    expect(sandboxPaths.filter((p) => !faucets.includes(p))).toEqual([]);
    expect(faucets.sort()).toEqual(['/sandbox/custody-a/vaults/{vaultId}/fund', '/sandbox/custody-b/fund']);
    for (const path of ['/kyc/callback/idv-a/event', '/kyc/callback/idv-a/decision', '/kyc/callback/idv-b']) {
      expect(doc.paths[path].post.security).toEqual([{ webhookSignature: [] }]);
      expect(doc.paths[path].post.responses).toHaveProperty('401');
    }
    expect(doc.components.securitySchemes.webhookSignature).toMatchObject({ type: 'apiKey', in: 'header', name: 'x-hmac-signature' });
  });
});
