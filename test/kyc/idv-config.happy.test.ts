import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createContainer } from '../../src/container.js';
import { TEST_MASTER_KEY } from '../helpers/harness.js';
import { cliJson } from '../helpers/cli.js';

describe('operator CLI: idv configure / idv sandbox', () => {
  it('points a tenant at a real provider (secret read from a file, stored sealed) and back at the sandbox', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'bastion-idv-cli-'));
    const env = { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, MASTER_KEY: TEST_MASTER_KEY, LOG_LEVEL: 'silent', ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}) };
    const cli = cliJson(env);
    const { tenantId } = await cli('tenant', 'create', '--name', `idv-cli-${crypto.randomUUID()}`);
    const secretFile = join(dataDir, 'idv-secret');
    writeFileSync(secretFile, 'a-real-provider-shared-secret\n', { mode: 0o600 });
    const configured = await cli('idv', 'configure', '--tenant', tenantId, '--provider', 'idv-a', '--base-url', 'https://idv-a.example/api', '--client-id', 'acme', '--secret-file', secretFile);
    expect(configured).toEqual({ tenantId, provider: 'idv-a', baseUrl: 'https://idv-a.example/api', configured: true });
    await expect(cli('idv', 'configure', '--tenant', tenantId, '--provider', 'idv-c', '--base-url', 'https://x', '--client-id', 'a', '--secret-file', secretFile)).rejects.toThrow(/--provider must be idv-a or idv-b/);

    const container = await createContainer({ config: loadConfig(env) });
    try {
      // The alias stores what `provider configure --kind idv --provider idv-a` stores.
      expect(await container.platform.providerSettings.get(tenantId, 'idv', 'idv-a')).toEqual({
        baseUrl: 'https://idv-a.example/api',
        settings: { 'client-id': 'acme' },
        secrets: { 'webhook-secret': 'a-real-provider-shared-secret' },
      });
    } finally {
      await container.close();
    }
    expect(await cli('idv', 'sandbox', '--tenant', tenantId, '--provider', 'idv-a')).toEqual({ tenantId, provider: 'idv-a', sandbox: true });
    const again = await createContainer({ config: loadConfig({ ...env, PUBLIC_BASE_URL: 'http://bastion.test' }) });
    try {
      const stored = await again.platform.providerSettings.get(tenantId, 'idv', 'idv-a');
      expect(stored).toMatchObject({ baseUrl: null, settings: { 'client-id': tenantId } });
      expect(stored.secrets['webhook-secret']).toMatch(/.{16,}/);
      expect(stored.secrets['webhook-secret']).not.toBe('a-real-provider-shared-secret');
    } finally {
      await again.close();
    }
  }, 300_000);
});
