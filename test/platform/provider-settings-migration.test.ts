import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runMigrations } from '../../src/platform/db/migrate.js';
import { ManualClock } from '../../src/platform/clock.js';
import { createSecretBox } from '../../src/platform/crypto/secrets.js';
import { createProviderSettings } from '../../src/platform/provider-settings/settings.js';
import { providerSettings } from '../../src/platform/provider-settings/table.js';
import { createProviders } from '../../src/platform/providers/service.js';
import { plaid } from '../../src/providers/bank-link/plaid/index.js';
import { businessProfileA } from '../../src/providers/business-profile/business-profile-a/index.js';
import { idvA } from '../../src/providers/idv/idv-a/index.js';
import { idvB } from '../../src/providers/idv/idv-b/index.js';
import { TEST_MASTER_KEY } from '../helpers/harness.js';
import { databaseBefore, type DatabaseBefore } from '../helpers/migrations.js';

/**
 * The migration that moved idv_provider_configs, business_profile_configs and the provider half
 * of bank_link_settings into provider_settings: rows written before it (secrets sealed under
 * the former contexts) are read after it through the modules' services. It needs a database
 * migrated to just before that migration: one of its own, of the pass's kind (helpers/migrations.ts).
 */
const work = mkdtempSync(join(tmpdir(), 'bastion-ps-migration-'));
let before: DatabaseBefore | undefined;
afterAll(async () => {
  await before?.close();
  rmSync(work, { recursive: true, force: true });
});


describe('provider settings migration', () => {
  it('carries idv, business-profile and bank-link settings over, secrets still readable, then seals them anew', async () => {
    before = await databaseBefore(work, 'DROP TABLE "idv_provider_configs"');
    const { database, run } = before;
    const secrets = await createSecretBox(database.db, Buffer.from(TEST_MASTER_KEY, 'hex'));
    const tenant = crypto.randomUUID();
    await run(`insert into tenants (id, name) values ($1, 'migrated')`, [tenant]);
    const now = new Date().toISOString();
    // As the services wrote them before the move.
    await run(
      `insert into idv_provider_configs (tenant_id, provider, base_url, client_id, webhook_secret_sealed, created_at, updated_at) values ($1, 'idv-a', 'https://idv-a.example/api', 'acme', $2, $3, $3), ($1, 'idv-b', null, $1, $4, $3, $3)`,
      [tenant, secrets.encrypt('idv-a-real-secret-0123456789', `idv:${tenant}:idv-a`), now, secrets.encrypt('idv-b-sandbox-secret-0123456789', `idv:${tenant}:idv-b`)],
    );
    await run(
      `insert into business_profile_configs (tenant_id, provider, base_url, api_key_sealed, api_key_digest, webhook_secret_sealed, created_at, updated_at) values ($1, 'business-profile-a', 'https://bp.example', $2, 'digest', $3, $4, $4)`,
      [tenant, secrets.encrypt('sk_live_migrated_key', `business-profile-a:api-key:${tenant}`), secrets.encrypt('bp-webhook-secret-0123456789', `business-profile-a:webhook-secret:${tenant}`), now],
    );
    await run(
      `insert into bank_link_settings (tenant_id, base_url, environment, client_id, secret_sealed, originator_client_id, redirect_allow, created_at, updated_at) values ($1, 'https://production.bank-link.example', 'production', 'client-123', $2, 'orig-1', '["https://app.example/bank"]'::jsonb, $3, $3)`,
      [tenant, secrets.encrypt('bank-link-prod-secret', `bank-link:${tenant}`), now],
    );

    await runMigrations(database, { sandboxes: true });
    const clock = new ManualClock(new Date());
    const ps = createProviderSettings({ db: database.db, secrets, clock });
    // The providers declared as the container declares them (their former sealing contexts included).
    const providers = createProviders({ db: database.db, clock, settings: ps, sandboxes: () => true, publicBaseUrl: () => 'http://bastion.test' });
    providers.register([idvA(), idvB(), plaid({ clock, publicBaseUrl: () => 'http://bastion.test' }), businessProfileA({})]);
    const idv = (provider: 'idv-a' | 'idv-b') => ps.get(tenant, 'idv', provider);

    expect(await idv('idv-a')).toEqual({ baseUrl: 'https://idv-a.example/api', settings: { 'client-id': 'acme' }, secrets: { 'webhook-secret': 'idv-a-real-secret-0123456789' } });
    // A tenant on the sandbox keeps its secret: pending sessions' webhooks still verify.
    expect(await idv('idv-b')).toMatchObject({ baseUrl: null, secrets: { 'webhook-secret': 'idv-b-sandbox-secret-0123456789' } });
    expect(await ps.get(tenant, 'business-profile', 'business-profile-a')).toMatchObject({
      baseUrl: 'https://bp.example',
      secrets: { 'api-key': 'sk_live_migrated_key', 'webhook-secret': 'bp-webhook-secret-0123456789' },
    });
    // The allow-list and the own originator came along too (a later migration made them settings of the kind).
    expect(await ps.get(tenant, 'bank-link', 'plaid')).toEqual({
      baseUrl: 'https://production.bank-link.example',
      settings: { 'client-id': 'client-123', environment: 'production', 'redirect-allow': 'https://app.example/bank', 'originator-client-id': 'orig-1' },
      secrets: { secret: 'bank-link-prod-secret' },
    });
    const port = await providers.port(tenant, 'bank-link');
    expect({ environment: port.environment, redirectAllow: port.redirectAllow, ownOriginator: port.ownOriginator }).toEqual({
      environment: 'production',
      redirectAllow: ['https://app.example/bank'],
      ownOriginator: 'orig-1',
    });

    // Read once: sealed again in the generic form, nothing left under the former contexts.
    const rows = await database.db.select().from(providerSettings);
    expect(rows).toHaveLength(4);
    for (const row of rows) {
      expect(row.legacySecrets).toBeNull();
      expect(row.secretsSealed).toMatch(/^v1\./);
    }
    expect(JSON.stringify(rows)).not.toMatch(/secret-0123|sk_live|prod-secret/);
    expect((await idv('idv-a')).secrets['webhook-secret']).toBe('idv-a-real-secret-0123456789');
    const tables = await run(`select table_name from information_schema.tables where table_name in ('idv_provider_configs', 'business_profile_configs')`, []);
    expect(tables.rows).toEqual([]);
  }, 300_000);
});
