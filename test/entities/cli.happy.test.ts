import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commands } from '../../src/cli-commands.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { entityOf, TIN } from './fixtures.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness({ listen: true });
});
afterAll(async () => h.close());

const run = (name: string, options: Record<string, string>) => commands[name]!(h.container, options, { redirectAllow: [] });

describe('business-profile CLI commands', () => {
  it('show, configure (secrets from files, sealed, never printed), back to the sandbox', async () => {
    const tenant = h.tenant.tenantId;
    expect(await run('business-profile show', { tenant })).toMatchObject({
      tenantId: tenant,
      sandbox: true,
      baseUrl: `${h.baseUrl}/sandbox/business-profile-a`,
      webhookUrl: `${h.baseUrl}/callbacks/business-profile-a/${tenant}`,
    });
    const keyFile = join(h.dataDir, 'bp-key');
    const secretFile = join(h.dataDir, 'bp-secret');
    writeFileSync(keyFile, 'sk_live_0123456789abcdef\n');
    writeFileSync(secretFile, 'whsec_0123456789abcdef0123\n');
    const configured = await run('business-profile configure', { tenant, 'base-url': 'https://api.provider.example/', 'api-key-file': keyFile, 'secret-file': secretFile });
    expect(configured).toMatchObject({ sandbox: false, baseUrl: 'https://api.provider.example', apiKeyLast4: 'cdef' });
    expect(JSON.stringify(configured)).not.toContain('sk_live_0123456789abcdef');
    expect(await run('business-profile sandbox', { tenant })).toMatchObject({ sandbox: true });
    await expect(run('business-profile configure', { tenant, 'base-url': 'ftp://x', 'api-key-file': keyFile, 'secret-file': secretFile })).rejects.toMatchObject({ code: 'usage' });
    await expect(run('business-profile show', { tenant: '00000000-0000-4000-8000-000000000000' })).rejects.toMatchObject({ code: 'TENANT_NOT_FOUND' });
  });

  it('review moves a sandbox business to approved and the webhook reaches the service', async () => {
    const { entityId, owner } = await entityOf(h);
    const api = h.api(owner.headers);
    const profile = (await api.POST('/entities/{id}/business-profile-a', { params: { path: { id: entityId } }, body: { tin: TIN } })).data!;
    const businessId = profile.providerBusinessId!;
    expect(businessId).toBeTruthy();
    h.clock.advance(1000);
    const result = await run('business-profile review', { tenant: h.tenant.tenantId, 'business-id': businessId, status: 'approved' });
    expect(result).toMatchObject({ status: 'approved', webhook: expect.stringMatching(/HTTP 200$/) });
    const now = await api.GET('/entities/{id}/business-profile-a', { params: { path: { id: entityId } } });
    expect(now.data!.status).toBe('approved');
    await expect(run('business-profile review', { tenant: h.tenant.tenantId, 'business-id': businessId, status: 'done' })).rejects.toMatchObject({ code: 'usage' });
  });
});
