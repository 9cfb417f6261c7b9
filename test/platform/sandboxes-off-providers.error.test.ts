import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { expectError } from '../helpers/security.js';
import { allowRedirects, APP_RETURN, configureBankLink } from '../helpers/bank-link.js';
import { entityOf, TIN } from '../entities/fixtures.js';

// SANDBOXES=off: the built-in bank-link provider is not served, so a tenant that has not been
// pointed at a real provider has none. It gets the not-configured answer, and no provider is asked.
let h: Harness;
let userId: string;
beforeAll(async () => {
  h = await createHarness({ env: { SANDBOXES: 'off' } });
  userId = await h.createUser();
});
afterAll(async () => h.close());

const q = encodeURIComponent(APP_RETURN);
const creds = { clientId: 'c'.repeat(24), secret: 's'.repeat(30) };

describe('bank-link (and business-profile) with sandboxes off and no provider configured', () => {
  it('the link-token, exchange, tenant and sandbox-originator routes answer 503 PROVIDER_NOT_CONFIGURED (one code for every kind)', async () => {
    // The operator may still prepare the allow-list before configuring a provider.
    await allowRedirects(h, h.tenant.tenantId, [APP_RETURN]);
    const user = h.bearerHeaders(await h.tokenFor(userId));
    const key = h.keyHeaders();
    const calls = [
      { method: 'GET' as const, url: `/bank-link/link-token?redirectUrl=${q}`, headers: user },
      { method: 'GET' as const, url: `/bank-link/tenant/link-token?redirectUrl=${q}`, headers: key },
      { method: 'POST' as const, url: '/bank-link/public-token', headers: user, payload: { publicToken: 'public-sandbox-0000' } },
      { method: 'POST' as const, url: '/bank-link-sandbox/originators', headers: key, payload: { ...creds, companyName: 'Acme' } },
      { method: 'GET' as const, url: '/bank-link-sandbox/originators?count=10&offset=0', headers: key },
      { method: 'GET' as const, url: '/bank-link-sandbox/originators/orig-1', headers: key },
      { method: 'POST' as const, url: '/bank-link-sandbox/originators/orig-1/kyb', headers: key, payload: { ...creds, redirectUri: APP_RETURN } },
    ];
    for (const call of calls) {
      const res = await h.inject(call);
      expectError(res, 503, 'PROVIDER_NOT_CONFIGURED');
      expect(res.json().message, `${call.method} ${call.url}`).toMatch(/not configured.*sandbox is off/);
    }
  });

  it('a tenant pointed at a real provider is asked (a provider that cannot be reached is BANK_LINK_PROVIDER_UNAVAILABLE, not PROVIDER_NOT_CONFIGURED)', async () => {
    const t = await h.newTenant();
    await configureBankLink(h, t.tenantId, { baseUrl: 'http://127.0.0.1:9', environment: 'sandbox', clientId: creds.clientId, secret: creds.secret });
    await allowRedirects(h, t.tenantId, [APP_RETURN]);
    expectError(await h.inject({ method: 'GET', url: `/bank-link/tenant/link-token?redirectUrl=${q}`, headers: h.keyHeaders(t) }), 503, 'BANK_LINK_PROVIDER_UNAVAILABLE');
  });

  it('business-profile the same way: 503 PROVIDER_NOT_CONFIGURED, and no profile is left in flight (a retry is 503 again, not 409)', async () => {
    const { entityId, owner } = await entityOf(h);
    for (let i = 0; i < 2; i++) {
      const res = await h.inject({ method: 'POST', url: `/entities/${entityId}/business-profile-a`, headers: owner.headers, payload: { tin: TIN, people: [{ name: 'Jane Doe' }] } });
      expectError(res, 503, 'PROVIDER_NOT_CONFIGURED');
    }
  });
});
