import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commands, UsageError, type Lists } from '../../src/cli-commands.js';
import { providerSettings } from '../../src/platform/provider-settings/table.js';
import { createHarness, type Harness } from '../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
  h.container.platform.providerSettings.declare({
    kind: 'test-kind',
    provider: 'test-provider',
    description: 'a provider declared by this test',
    settings: { 'client-id': { required: true, description: 'the client id' }, region: { required: false, description: 'a region' } },
    secrets: { 'api-key': { required: true, description: 'the API key' } },
  });
  h.container.platform.providerSettings.declare({
    kind: 'test-kind',
    provider: 'test-kept',
    description: 'a provider with a setting of the kind (kept)',
    settings: { 'client-id': { required: true, description: 'the client id' }, allow: { required: false, kept: true, description: 'kept across configure' }, own: { required: false, description: 'not kept' } },
    secrets: {},
  });
});
afterAll(async () => h.close());

const run = (name: string, options: Record<string, string>, lists: Partial<Lists> = {}) => commands[name]!(h.container, options, { redirectAllow: [], ...lists });

describe('provider settings: one table, one CLI shape', () => {
  it('configure seals the secrets (never shown), get opens them, sandbox forgets them', async () => {
    const tenant = h.tenant.tenantId;
    const ids = { tenant, kind: 'test-kind', provider: 'test-provider' };
    expect(await run('provider show', ids)).toMatchObject({ sandbox: true, baseUrl: null, secrets: [] });
    const keyFile = join(h.dataDir, 'api-key');
    writeFileSync(keyFile, 'sk_live_provider_secret_0001\n');
    const shown = await run('provider configure', { ...ids, 'base-url': 'https://custody.example/api/' }, { settings: ['client-id=abc'], secrets: [`api-key=${keyFile}`] });
    expect(shown).toMatchObject({ sandbox: false, baseUrl: 'https://custody.example/api', settings: { 'client-id': 'abc' }, secrets: ['api-key'] });
    expect(JSON.stringify(shown)).not.toContain('sk_live_provider_secret_0001');
    const [row] = await h.container.platform.db.select().from(providerSettings);
    expect(row!.secretsSealed).not.toContain('sk_live');
    expect(await h.container.platform.providerSettings.get(tenant, 'test-kind', 'test-provider')).toEqual({
      baseUrl: 'https://custody.example/api',
      settings: { 'client-id': 'abc' },
      secrets: { 'api-key': 'sk_live_provider_secret_0001' },
    });
    // Another tenant is untouched.
    const other = await h.newTenant();
    expect((await h.container.platform.providerSettings.get(other.tenantId, 'test-kind', 'test-provider')).baseUrl).toBeNull();
    expect(await run('provider sandbox', ids)).toMatchObject({ sandbox: true });
    expect(await h.container.platform.providerSettings.get(tenant, 'test-kind', 'test-provider')).toEqual({ baseUrl: null, settings: {}, secrets: {} });
    expect((await run('provider list', {})) as unknown[]).toContainEqual(expect.objectContaining({ kind: 'test-kind', provider: 'test-provider' }));
  });

  it('refuses unknown providers, unknown or missing settings, bad URLs and unreadable files, changing nothing', async () => {
    const tenant = h.tenant.tenantId;
    const keyFile = join(h.dataDir, 'api-key-2');
    writeFileSync(keyFile, 'k');
    const base = { tenant, kind: 'test-kind', provider: 'test-provider', 'base-url': 'https://custody.example' };
    const good = { settings: ['client-id=abc'], secrets: [`api-key=${keyFile}`] };
    await expect(run('provider configure', { ...base, provider: 'nope' }, good)).rejects.toBeInstanceOf(UsageError);
    await expect(run('provider configure', base, { ...good, settings: ['client-id=abc', 'colour=red'] })).rejects.toThrow(/colour/);
    await expect(run('provider configure', base, { ...good, settings: [] })).rejects.toThrow(/client-id/);
    await expect(run('provider configure', base, { ...good, secrets: [] })).rejects.toThrow(/api-key/);
    await expect(run('provider configure', base, { ...good, settings: ['client-id'] })).rejects.toThrow(/NAME=VALUE/);
    await expect(run('provider configure', { ...base, 'base-url': 'ftp://x' }, good)).rejects.toBeInstanceOf(UsageError);
    await expect(run('provider configure', base, { ...good, secrets: ['api-key=/nonexistent/file'] })).rejects.toThrow(/no such file/);
    await expect(run('provider show', { ...base, tenant: '00000000-0000-4000-8000-000000000000' })).rejects.toMatchObject({ code: 'TENANT_NOT_FOUND' });
    expect(await run('provider show', base)).toMatchObject({ sandbox: true });
  });

  it('update changes some settings and keeps the rest; a kept setting survives configure and sandbox, another does not', async () => {
    const ps = h.container.platform.providerSettings;
    const tenant = (await h.newTenant()).tenantId;
    await ps.update(tenant, 'test-kind', 'test-kept', { allow: 'https://a.example', own: 'o-1' });
    expect(await ps.get(tenant, 'test-kind', 'test-kept')).toEqual({ baseUrl: null, settings: { allow: 'https://a.example', own: 'o-1' }, secrets: {} });
    const before = await ps.stamp(tenant, 'test-kind', 'test-kept');
    await ps.configure(tenant, 'test-kind', 'test-kept', { baseUrl: 'https://p.example', settings: { 'client-id': 'c' }, secrets: {} });
    expect((await ps.stamp(tenant, 'test-kind', 'test-kept')).version).toBeGreaterThan(before.version);
    expect((await ps.get(tenant, 'test-kind', 'test-kept')).settings).toEqual({ 'client-id': 'c', allow: 'https://a.example' });
    await ps.update(tenant, 'test-kind', 'test-kept', { own: 'o-2', allow: null });
    expect((await ps.get(tenant, 'test-kind', 'test-kept')).settings).toEqual({ 'client-id': 'c', own: 'o-2' });
    await expect(ps.update(tenant, 'test-kind', 'test-kept', { colour: 'red' })).rejects.toThrow(/colour/);
    await ps.update(tenant, 'test-kind', 'test-kept', { allow: 'https://b.example' });
    await ps.useSandbox(tenant, 'test-kind', 'test-kept');
    expect(await ps.get(tenant, 'test-kind', 'test-kept')).toEqual({ baseUrl: null, settings: { allow: 'https://b.example' }, secrets: {} });
  });
});
