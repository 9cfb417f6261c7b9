import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commands } from '../../src/cli-commands.js';
import { createHarness, TEST_MASTER_KEY } from '../helpers/harness.js';
import { cliJson } from '../helpers/cli.js';

describe('operator CLI: idp set / show / remove', () => {
  it('sets a provider (secret sealed, several redirect URLs), shows it masked, removes it', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'bastion-idp-cli-'));
    const env = { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, MASTER_KEY: TEST_MASTER_KEY, LOG_LEVEL: 'silent', PUBLIC_BASE_URL: 'https://bastion.example', ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}) };
    const cli = cliJson(env);
    const { tenantId } = await cli('tenant', 'create', '--name', `idp-cli-${crypto.randomUUID()}`);
    const set = await cli('idp', 'set', '--tenant', tenantId, '--issuer', 'https://login.example.com', '--client-id', 'bastion', '--client-secret', 'cli-secret-value-123',
      '--redirect-allow', 'https://app.example/cb', 'https://app.example/other', '--redirect-allow', 'http://localhost:3000/');
    expect(set).toEqual({
      tenantId,
      issuer: 'https://login.example.com',
      clientId: 'bastion',
      clientSecret: '********',
      scopes: 'openid email profile',
      redirectAllow: ['https://app.example/cb', 'http://localhost:3000/', 'https://app.example/other'],
      callbackUrl: 'https://bastion.example/auth/idp/callback',
      updatedAt: expect.any(String),
    });
    // The rest runs in-process (as the service runs commands for a CLI on its socket).
    const h = await createHarness({ env: { PUBLIC_BASE_URL: 'https://bastion.example' } });
    try {
      const tenant = h.tenant.tenantId;
      const run = (name: string, options: Record<string, string>, redirectAllow: string[] = []) => commands[name]!(h.container, options, { redirectAllow }) as Promise<Record<string, unknown>>;
      const secretFile = join(h.dataDir, 'idp-secret');
      writeFileSync(secretFile, 'secret-from-a-file\n', { mode: 0o600 });
      const again = await run('idp set', { tenant, issuer: 'https://login.example.com', 'client-id': 'bastion', 'client-secret-file': secretFile, scopes: 'email' }, ['https://app.example/cb']);
      expect(again.scopes).toBe('openid email');
      const shown = await run('idp show', { tenant });
      expect(JSON.stringify(shown)).not.toContain('secret-from-a-file');

      const container = h.container;
      expect((await container.platform.providerSettings.get(tenant, 'idp', 'oidc')).secrets['client-secret']).toBe('secret-from-a-file');
      // Bad settings are refused and change nothing.
      const base = { issuer: 'https://login.example.com', clientId: 'a', clientSecret: 'b', redirectAllow: ['https://app.example/cb'] };
      await expect(container.idpConfig.set(tenant, { ...base, issuer: 'http://login.example.com' })).rejects.toThrow(/issuer must use https/);
      await expect(container.idpConfig.set(tenant, { ...base, issuer: 'not a url' })).rejects.toThrow(/absolute URL/);
      await expect(container.idpConfig.set(tenant, { ...base, redirectAllow: ['http://app.example/cb'] })).rejects.toThrow(/must use https/);
      await expect(container.idpConfig.set(tenant, { ...base, redirectAllow: [] })).rejects.toThrow(/at least one/);
      await expect(container.idpConfig.set(tenant, { ...base, clientId: ' ' })).rejects.toThrow(/client id/);
      expect((await container.idpConfig.view(tenant)).clientId).toBe('bastion');

      await expect(run('idp set', { tenant, issuer: 'https://login.example.com', 'client-id': 'a', 'client-secret': 'b' })).rejects.toThrow(/--redirect-allow needs at least one URL/);
      expect(await run('idp remove', { tenant })).toEqual({ tenantId: tenant, removed: true });
      await expect(run('idp show', { tenant })).rejects.toMatchObject({ reason: 'not_configured', kind: 'idp' });
    } finally {
      await h.close();
    }
  }, 300_000);
});
