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
import { oidcIdp } from '../../src/providers/idp/oidc/index.js';
import { custodyB } from '../../src/providers/custody-b/custody-b/index.js';
import { TEST_MASTER_KEY } from '../helpers/harness.js';
import { databaseBefore, type DatabaseBefore } from '../helpers/migrations.js';

/**
 * The migration that gave custody-b a kind of its own and moved idp_configs into
 * provider_settings: rows written before it (secrets sealed under the former contexts) are
 * read after it through the providers service, then sealed again in the generic form.
 * It needs a database migrated to just before that migration: one of its own, on the pass's kind (helpers/migrations.ts).
 */
const work = mkdtempSync(join(tmpdir(), 'bastion-ps-migration-idp-'));
let before: DatabaseBefore | undefined;
afterAll(async () => {
  await before?.close();
  rmSync(work, { recursive: true, force: true });
});

describe('provider settings migration (custody-b kind, idp_configs)', () => {
  it('carries custody-b and IdP settings over, secrets still readable, then seals them anew', async () => {
    before = await databaseBefore(work, 'DROP TABLE "idp_configs"');
    const { database, run } = before;
    const secrets = await createSecretBox(database.db, Buffer.from(TEST_MASTER_KEY, 'hex'));
    const tenant = crypto.randomUUID();
    await run(`insert into tenants (id, name) values ($1, 'migrated')`, [tenant]);
    const now = new Date().toISOString();
    // As provider settings and the IdP config service wrote them before the move.
    const custodyBSecrets = { serviceToken: 'svc_migrated_token', servicePrivateKey: 'migrated-private-key' };
    await run(
      `insert into provider_settings (tenant_id, kind, provider, base_url, settings, secrets_sealed, created_at, updated_at) values ($1, 'custody', 'custody-b', 'https://api.custody-b.example', $2, $3, $4, $4)`,
      [tenant, JSON.stringify({ appId: 'ap-1', serviceCredId: 'cred-1', network: 'BaseSepolia' }), secrets.encrypt(JSON.stringify(custodyBSecrets), `provider:${tenant}:custody:custody-b`), now],
    );
    await run(
      `insert into idp_configs (tenant_id, issuer, client_id, client_secret_sealed, scopes, redirect_allow, created_at, updated_at) values ($1, 'https://login.example.com/', 'bastion', $2, 'openid email', $3, $4, $4)`,
      [tenant, secrets.encrypt('idp-migrated-secret', `idp:${tenant}`), JSON.stringify(['https://app.example/cb', 'http://localhost:3000/']), now],
    );

    await runMigrations(database, { sandboxes: true });
    const clock = new ManualClock(new Date());
    const settings = createProviderSettings({ db: database.db, secrets, clock });
    const providers = createProviders({ db: database.db, clock, settings, sandboxes: () => false, publicBaseUrl: () => 'http://bastion.test' });
    providers.register([oidcIdp({ clock }), custodyB({ clock, localChains: { evmChainId: 31337, xrplNetwork: async () => 'local' } })]);

    const idp = await providers.port(tenant, 'idp');
    // The issuer is kept exactly (its trailing slash too): it is compared with the `iss` the provider signs.
    expect({ issuer: idp.issuer, clientId: idp.clientId, scopes: idp.scopes, redirectAllow: idp.redirectAllow }).toEqual({
      issuer: 'https://login.example.com/',
      clientId: 'bastion',
      scopes: 'openid email',
      redirectAllow: ['https://app.example/cb', 'http://localhost:3000/'],
    });
    expect((await settings.get(tenant, 'idp', 'oidc')).secrets).toEqual({ 'client-secret': 'idp-migrated-secret' });
    const b = await providers.port(tenant, 'custody-b');
    expect(b.defaultNetwork).toBe('BaseSepolia');
    expect(await b.locationOf('BaseSepolia')).toEqual({ chain: 'evm', chainId: 84532 });
    expect(await settings.get(tenant, 'custody-b', 'custody-b')).toEqual({
      baseUrl: 'https://api.custody-b.example',
      settings: { appId: 'ap-1', serviceCredId: 'cred-1', network: 'BaseSepolia' },
      secrets: custodyBSecrets,
    });

    // Read once: sealed again in the generic form, nothing left under the former contexts.
    const rows = await database.db.select().from(providerSettings);
    expect(rows.map((r) => `${r.kind}/${r.provider}`).sort()).toEqual(['custody-b/custody-b', 'idp/oidc']);
    for (const row of rows) {
      expect(row.legacySecrets).toBeNull();
      expect(row.secretsSealed).toMatch(/^v1\./);
    }
    expect(JSON.stringify(rows)).not.toMatch(/migrated-secret|svc_migrated|migrated-private/);
    const tables = await run(`select table_name from information_schema.tables where table_name = 'idp_configs'`, []);
    expect(tables.rows).toEqual([]);
  }, 300_000);
});
