import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { expectError } from '../helpers/security.js';
import { keyAttestation, newKeyCredential, signChallenge } from '../helpers/custody-b.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness({ listen: true });
}, 120_000);
afterAll(async () => h?.close());

describe('custody-b configured per tenant (generic provider settings)', () => {
  it('a tenant pointed at a provider URL uses its app id, service token and key; a wrong app id is 502', async () => {
    const tenant = await h.newTenant();
    const sandbox = h.container.sandboxes.custodyB;
    // The provider's dashboard would give these; here, an organisation opened at the sandbox.
    const conn = await sandbox.connection(tenant.tenantId);
    const settings = h.container.platform.providerSettings;
    const configure = (appId: string) =>
      settings.configure(tenant.tenantId, 'custody-b', 'custody-b', {
        baseUrl: conn.baseUrl,
        settings: { appId, serviceCredId: conn.serviceCredId, network: 'BaseSepolia' },
        secrets: { serviceToken: conn.serviceToken, servicePrivateKey: conn.servicePrivateKeyPem },
      });
    await configure(conn.appId);
    const headers = h.bearerHeaders(await h.tokenFor(await h.createUser(tenant), tenant), tenant);
    const cred = newKeyCredential('ed25519');
    const api = h.api(headers);
    const reg = (await api.GET('/custody-b/users/challenge')).data!;
    expect((await api.POST('/custody-b/users', { body: { firstFactorCredential: keyAttestation(cred, reg.challenge) } })).response.status).toBe(201);
    const wc = (await api.GET('/custody-b/wallets/challenge')).data!;
    expect(wc.request).toEqual({ method: 'POST', path: '/wallets', body: { network: 'BaseSepolia' } });
    const wallet = await api.POST('/custody-b/wallets', { body: { signedChallenge: signChallenge(cred, wc) } });
    expect(wallet.response.status).toBe(201);
    // A configured provider's network is its own chain.
    expect(wallet.data).toMatchObject({ chainId: 84532, details: { network: 'BaseSepolia' } });

    await configure('ap-wrong');
    expectError(await h.inject({ method: 'GET', url: '/custody-b/users/auth-token', headers }), 502, 'CUSTODY_B_PROVIDER_UNAVAILABLE');
  }, 60_000);
});
