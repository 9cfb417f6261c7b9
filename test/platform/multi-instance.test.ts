import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { createContainer, type Container } from '../../src/container.js';
import { openDatabase, type Database } from '../../src/platform/db/client.js';
import { migratedImage, TEST_MASTER_KEY } from '../helpers/harness.js';

/** One instance of the service on the shared database, with its own settings. */
async function instance(database: Database, env: Record<string, string>): Promise<Container> {
  const config = loadConfig({ DATA_DIR: mkdtempSync(join(tmpdir(), 'bastion-instance-')), DATABASE_URL: process.env.DATABASE_URL, MASTER_KEY: TEST_MASTER_KEY, LOG_LEVEL: 'silent', ...env });
  return createContainer({ config, database });
}

describe('several instances on one database', () => {
  let database: Database;
  const containers: Container[] = [];
  beforeAll(async () => {
    database = await openDatabase({ databaseUrl: process.env.DATABASE_URL, image: migratedImage() });
  });
  afterAll(async () => {
    // The database is shared: each container's own work stops, then the database closes once.
    for (const c of containers) {
      await c.platform.background.close();
      for (const module of [...c.modules].reverse()) await module.stop?.();
      await c.mail.worker.stop();
      await c.mail.transport.close();
    }
    await database.close();
  });

  async function tokenAcross(a: Record<string, string>, b: Record<string, string>): Promise<boolean> {
    const first = await instance(database, a);
    const second = await instance(database, b);
    containers.push(first, second);
    const { tenantId } = await first.tenants.createTenant(`issuer-${Date.now()}-${Math.random()}`);
    const user = await first.users.createUser(tenantId, { email: `u-${Math.random()}@example.com` });
    const pair = await first.sessions.start(tenantId, user.id, 'user');
    return (await second.sessions.verifyAccessToken(pair.accessToken)) !== undefined;
  }

  it('TOKEN_ISSUER names the issuer: instances with different PUBLIC_BASE_URLs and one TOKEN_ISSUER accept each other\'s tokens', async () => {
    const issuer = 'https://id.example.com';
    expect(await tokenAcross({ PUBLIC_BASE_URL: 'https://a.internal', TOKEN_ISSUER: issuer }, { PUBLIC_BASE_URL: 'https://b.internal', TOKEN_ISSUER: `${issuer}/` })).toBe(true);
    // Without it the issuer is PUBLIC_BASE_URL, which must then be the same everywhere.
    expect(await tokenAcross({ PUBLIC_BASE_URL: 'https://a.internal' }, { PUBLIC_BASE_URL: 'https://b.internal' })).toBe(false);
  });

  it('TOKEN_ISSUER must be an http(s) URL', () => {
    expect(() => loadConfig({ TOKEN_ISSUER: 'not a url' })).toThrow(ConfigError);
    expect(() => loadConfig({ TOKEN_ISSUER: 'ftp://id.example.com' })).toThrow(/TOKEN_ISSUER/);
  });
});
