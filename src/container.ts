import type { Config } from './config.js';
import { systemClock, type Clock } from './platform/clock.js';
import { openDatabase, type Database } from './platform/db/client.js';
import { runMigrations } from './platform/db/migrate.js';
import { txRunner } from './platform/db/tx.js';
import { createSecretBox, resolveMasterKey } from './platform/crypto/secrets.js';
import type { AccessClaims } from './platform/http/guards.js';
import { createTenantsRepo } from './modules/tenants/repo.js';
import { createTenantsService } from './modules/tenants/service.js';
import { createUsersRepo } from './modules/users/repo.js';
import { createUsersService } from './modules/users/service.js';

export interface ContainerOptions {
  config: Config;
  /** An already opened database (tests); otherwise opened from the config. */
  database?: Database;
  clock?: Clock;
  /** Replaces the access-token verifier (tests of the guards). */
  verifyAccessToken?: (token: string) => Promise<AccessClaims | undefined>;
}

/** The composition root: config -> database -> repos -> services. Plain factories, no DI framework. */
export async function createContainer(options: ContainerOptions) {
  const { config } = options;
  const clock = options.clock ?? systemClock;
  const database =
    options.database ??
    (await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.databaseUrl ? undefined : config.dataDir }));
  // Migrations first (under an advisory lock on PostgreSQL): everything below reads tables.
  await runMigrations(database);
  const db = database.db;
  const tx = txRunner(db);
  const secrets = await createSecretBox(db, resolveMasterKey(config.masterKey, config.dataDir));

  const tenants = createTenantsService({ repo: createTenantsRepo(db), clock });
  const users = createUsersService({ repo: createUsersRepo(db), tx, clock });

  const verifyAccessToken =
    options.verifyAccessToken ?? (async (): Promise<AccessClaims | undefined> => undefined);

  return {
    config,
    clock,
    database,
    secrets,
    tenants,
    users,
    guardDeps: {
      findTenant: (id: string) => tenants.findTenant(id),
      verifyApiKey: (tenantId: string, raw: string) => tenants.verifyApiKey(tenantId, raw),
      verifyAccessToken,
    },
    async close(): Promise<void> {
      await database.close();
    },
  };
}

export type Container = Awaited<ReturnType<typeof createContainer>>;
