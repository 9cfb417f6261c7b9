import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createContainer } from '../../src/container.js';
import { ensureDemoTenant } from '../../src/modules/tenants/demo.js';
import { openDatabase } from '../../src/platform/db/client.js';
import { runMigrations } from '../../src/platform/db/migrate.js';
import { TEST_MASTER_KEY, usingPostgres } from '../helpers/harness.js';

describe('persistence', () => {
  it('the embedded database keeps data across restarts, and the demo tenant is created once (0600)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'bastion-persist-'));
    const config = loadConfig({ DATA_DIR: dataDir });
    const first = await createContainer({ config });
    await runMigrations(first.database, { sandboxes: config.sandboxes });
    const file = await ensureDemoTenant(first.tenants, dataDir);
    expect(file).toBe(join(dataDir, 'demo-tenant.json'));
    expect(statSync(file!).mode & 0o777).toBe(0o600);
    const demo = JSON.parse(readFileSync(file!, 'utf8')) as { tenantId: string; apiKey: string };
    const user = await first.users.createUser(demo.tenantId, { email: 'kept@example.com' });
    await first.close();

    const second = await createContainer({ config });
    await runMigrations(second.database, { sandboxes: config.sandboxes });
    expect(await ensureDemoTenant(second.tenants, dataDir)).toBeUndefined();
    expect(await second.tenants.verifyApiKey(demo.tenantId, demo.apiKey)).toBeTruthy();
    expect((await second.users.getUser(demo.tenantId, user.id)).email).toBe('kept@example.com');
    await second.close();
    // Two starts of a fresh embedded database, each running every migration: slow on a busy machine.
  }, 120_000);

  it.runIf(usingPostgres)('a second instance on the same PostgreSQL serves the same data', async () => {
    const config = loadConfig({ DATABASE_URL: process.env.DATABASE_URL, MASTER_KEY: TEST_MASTER_KEY });
    const [a, b] = await Promise.all([
      createContainer({ config, database: await openDatabase({ databaseUrl: config.databaseUrl }) }),
      createContainer({ config, database: await openDatabase({ databaseUrl: config.databaseUrl }) }),
    ]);
    // Both run migrations at start at the same time: the advisory lock serialises them.
    await Promise.all([runMigrations(a.database, { sandboxes: config.sandboxes }), runMigrations(b.database, { sandboxes: config.sandboxes })]);
    const tenant = await a.tenants.createTenant(`shared-${Date.now()}`);
    const user = await a.users.createUser(tenant.tenantId, { email: 'two@example.com' });
    expect(await b.tenants.verifyApiKey(tenant.tenantId, tenant.apiKey)).toBe(tenant.keyId);
    expect((await b.users.getUser(tenant.tenantId, user.id)).email).toBe('two@example.com');
    await a.tenants.revokeApiKey(tenant.tenantId, tenant.keyId);
    expect(await b.tenants.verifyApiKey(tenant.tenantId, tenant.apiKey)).toBeUndefined();
    await Promise.all([a.close(), b.close()]);
  });
});
