import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { expectError } from '../helpers/security.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness({ listen: true, env: { IDV_SANDBOX: 'off' } });
});
afterAll(async () => h.close());

describe('IDV_SANDBOX=off', () => {
  it('the sandbox is not mounted, and a tenant without a provider cannot start a session (502), leaving no record', async () => {
    expect((await fetch(`${h.baseUrl}/sandbox/idv-a/s/${crypto.randomUUID()}`)).status).toBe(404);
    const userId = await h.createUser();
    const headers = h.bearerHeaders(await h.tokenFor(userId));
    expectError(await h.inject({ method: 'POST', url: '/kyc', headers, payload: {} }), 503, 'PROVIDER_NOT_CONFIGURED');
    expectError(await h.inject({ method: 'POST', url: '/kyc/idv-b/regular-challenge', headers }), 503, 'PROVIDER_NOT_CONFIGURED');
    expect((await h.inject({ method: 'GET', url: '/kyc/kycs', headers: h.keyHeaders() })).json().total).toBe(0);
    // No sandbox credentials were made for the tenant.
    expect(await h.container.platform.providerSettings.find(h.tenant.tenantId, 'idv', 'idv-a')).toBeUndefined();
    // Manual records for review still work.
    const manual = await h.inject({ method: 'POST', url: '/kyc/kyc', headers: h.keyHeaders(), payload: { userId, provider: 'manual' } });
    expect(manual.statusCode).toBe(201);
  });

  it('IDV_SANDBOX accepts on/off only', () => {
    expect(loadConfig({ IDV_SANDBOX: 'OFF' }).idvSandbox).toBe(false);
    expect(loadConfig({}).idvSandbox).toBe(true);
    expect(() => loadConfig({ IDV_SANDBOX: 'maybe' })).toThrow(ConfigError);
  });
});
