import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createContainer } from '../../src/container.js';
import { bankLinkSettings } from '../../src/modules/bank-link/table.js';
import { providerSettings } from '../../src/platform/provider-settings/table.js';
import { TEST_MASTER_KEY } from '../helpers/harness.js';

const run = promisify(execFile);

describe('operator CLI: bank-link configure / sandbox / redirect-allow / originator / show', () => {
  it('configures a tenant (secret sealed, never shown), its allow-list and originator, and goes back to the sandbox', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'bastion-bank-link-cli-'));
    const env = { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, MASTER_KEY: TEST_MASTER_KEY, LOG_LEVEL: 'silent', PUBLIC_BASE_URL: 'https://bastion.example', ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}) };
    const cli = async (...args: string[]) => JSON.parse((await run(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], { env })).stdout);
    const { tenantId } = await cli('tenant', 'create', '--name', `bank-link-cli-${crypto.randomUUID()}`);

    const shown = await cli('bank-link', 'show', '--tenant', tenantId);
    expect(shown).toMatchObject({
      tenantId,
      provider: 'built-in sandbox',
      environment: 'sandbox',
      baseUrl: 'https://bastion.example/sandbox/bank-link',
      clientId: expect.stringMatching(/^[0-9a-f]{24}$/),
      sandboxSecret: expect.stringMatching(/^[0-9a-f]{30}$/),
      webhookUrl: `https://bastion.example/bank-link/webhooks/${tenantId}`,
    });

    const allow = await cli('bank-link', 'redirect-allow', '--tenant', tenantId, '--redirect-allow', 'https://app.example/bank', 'http://localhost:3000/');
    expect(allow.redirectAllow).toEqual(['https://app.example/bank', 'http://localhost:3000/']);
    const refused = await run(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'bank-link', 'redirect-allow', '--tenant', tenantId, '--redirect-allow', 'http://app.example/'], { env }).catch((e: { code: number; stderr: string }) => e);
    expect(refused).toMatchObject({ code: 2, stderr: expect.stringContaining('https') });

    const secretFile = join(dataDir, 'bank-link-secret');
    writeFileSync(secretFile, 'prod-secret-value-0123456789\n', { mode: 0o600 });
    const configured = await cli('bank-link', 'configure', '--tenant', tenantId, '--base-url', 'https://production.bank-link.example/', '--client-id', 'client-123', '--secret-file', secretFile, '--environment', 'production');
    expect(configured).toMatchObject({ baseUrl: 'https://production.bank-link.example', clientId: 'client-123', environment: 'production', sandboxSecret: null, redirectAllow: allow.redirectAllow });
    expect(JSON.stringify(configured)).not.toContain('prod-secret-value');

    const own = await cli('bank-link', 'originator', '--tenant', tenantId, '--originator-id', 'abc123');
    expect(own).toEqual({ tenantId, originatorClientId: 'abc123' });

    const container = await createContainer({ config: loadConfig(env) });
    try {
      const [row] = await container.database.db.select().from(bankLinkSettings).where(eq(bankLinkSettings.tenantId, tenantId));
      const [provider] = await container.database.db
        .select()
        .from(providerSettings)
        .where(and(eq(providerSettings.tenantId, tenantId), eq(providerSettings.kind, 'bank-link')));
      expect(provider).toMatchObject({ provider: 'plaid', baseUrl: 'https://production.bank-link.example', settings: { 'client-id': 'client-123', environment: 'production' } });
      expect(provider!.secretsSealed).toMatch(/^v1\./);
      expect(JSON.stringify(provider)).not.toContain('prod-secret-value');
      expect(row!.originatorClientId).toBe('abc123');
    } finally {
      await container.close();
    }

    const back = await cli('bank-link', 'sandbox', '--tenant', tenantId);
    expect(back).toMatchObject({ provider: 'built-in sandbox', environment: 'sandbox', originatorClientId: null, redirectAllow: allow.redirectAllow });
    expect(back.clientId).not.toBe(shown.clientId);
  }, 600_000);
});
