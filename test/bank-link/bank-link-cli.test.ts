import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commands, UsageError } from '../../src/cli-commands.js';
import { providerSettings } from '../../src/platform/provider-settings/table.js';
import { createHarness, type Harness } from '../helpers/harness.js';

// The commands run in-process here (as the service runs them for a CLI on its control socket);
// test/platform/cli-process.test.ts proves the process, its option parsing and exit codes.
let h: Harness;
beforeAll(async () => {
  h = await createHarness({ env: { PUBLIC_BASE_URL: 'https://bastion.example' } });
});
afterAll(async () => h.close());

const cli = (name: string, options: Record<string, string>, redirectAllow: string[] = []) =>
  commands[name]!(h.container, options, { redirectAllow }) as Promise<Record<string, unknown>>;

describe('operator CLI: bank-link configure / sandbox / redirect-allow / originator / show', () => {
  it('configures a tenant (secret sealed, never shown), its allow-list and originator, and goes back to the sandbox', async () => {
    const tenant = h.tenant.tenantId;
    const tenantId = tenant;
    const shown = await cli('bank-link show', { tenant });
    expect(shown).toMatchObject({
      tenantId,
      provider: 'built-in sandbox',
      environment: 'sandbox',
      baseUrl: 'https://bastion.example/sandbox/bank-link',
      clientId: expect.stringMatching(/^[0-9a-f]{24}$/),
      sandboxSecret: expect.stringMatching(/^[0-9a-f]{30}$/),
      webhookUrl: `https://bastion.example/bank-link/webhooks/${tenantId}`,
    });

    const allow = await cli('bank-link redirect-allow', { tenant }, ['https://app.example/bank', 'http://localhost:3000/']);
    expect(allow.redirectAllow).toEqual(['https://app.example/bank', 'http://localhost:3000/']);
    const refused = await cli('bank-link redirect-allow', { tenant }, ['http://app.example/']).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(UsageError);
    expect((refused as Error).message).toContain('https');

    const secretFile = join(h.dataDir, 'bank-link-secret');
    writeFileSync(secretFile, 'prod-secret-value-0123456789\n', { mode: 0o600 });
    const configured = await cli('bank-link configure', { tenant, 'base-url': 'https://production.bank-link.example/', 'client-id': 'client-123', 'secret-file': secretFile, environment: 'production' });
    expect(configured).toMatchObject({ baseUrl: 'https://production.bank-link.example', clientId: 'client-123', environment: 'production', sandboxSecret: null, redirectAllow: allow.redirectAllow });
    expect(JSON.stringify(configured)).not.toContain('prod-secret-value');

    const own = await cli('bank-link originator', { tenant, 'originator-id': 'abc123' });
    expect(own).toEqual({ tenantId, originatorClientId: 'abc123' });

    const db = h.container.database.db;
    const [provider] = await db
      .select()
      .from(providerSettings)
      .where(and(eq(providerSettings.tenantId, tenantId), eq(providerSettings.kind, 'bank-link')));
    // The allow-list and the own originator are settings of the kind, beside the provider account's.
    expect(provider).toMatchObject({
      provider: 'plaid',
      baseUrl: 'https://production.bank-link.example',
      settings: { 'client-id': 'client-123', environment: 'production', 'redirect-allow': 'https://app.example/bank http://localhost:3000/', 'originator-client-id': 'abc123' },
    });
    expect(provider!.secretsSealed).toMatch(/^v1\./);
    expect(JSON.stringify(provider)).not.toContain('prod-secret-value');

    const back = await cli('bank-link sandbox', { tenant });
    expect(back).toMatchObject({ provider: 'built-in sandbox', environment: 'sandbox', originatorClientId: null, redirectAllow: allow.redirectAllow });
    expect(back.clientId).not.toBe(shown.clientId);
  });
});
