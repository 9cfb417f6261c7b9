import type { Config } from './config.js';
import { systemClock, type Clock } from './platform/clock.js';
import { openDatabase, type Database } from './platform/db/client.js';
import { runMigrations } from './platform/db/migrate.js';
import { txRunner } from './platform/db/tx.js';
import { createSecretBox, resolveMasterKey } from './platform/crypto/secrets.js';
import type { Logger } from 'pino';
import pino from 'pino';
import { createKeyRing } from './modules/auth/keys.js';
import { createPasswordHasher } from './modules/auth/passwords.js';
import { createAuthRepo } from './modules/auth/repo.js';
import { createAuthService } from './modules/auth/service.js';
import { createSessionService, type SecurityEventSink } from './modules/auth/sessions.js';
import { createTokenService } from './modules/auth/tokens.js';
import { createTenantsRepo } from './modules/tenants/repo.js';
import { createTenantsService } from './modules/tenants/service.js';
import { createUsersRepo } from './modules/users/repo.js';
import { createUsersService } from './modules/users/service.js';

export interface ContainerOptions {
  config: Config;
  /** An already opened database (tests); otherwise opened from the config. */
  database?: Database;
  clock?: Clock;
  logger?: Logger;
  /** Password hashing concurrency (tests of the bounded queue). */
  passwordPool?: { maxConcurrent?: number; maxQueue?: number };
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
  const logger = options.logger ?? pino({ level: 'silent' });

  // Security events go to the log until the audit module records them.
  const record: SecurityEventSink = async (_db, tenantId, event) => {
    logger.info({ securityEvent: { tenantId, ...event } }, 'security event');
  };

  const keys = createKeyRing({ db, secrets, clock });
  await keys.init();
  const tokens = createTokenService({ keys, clock, issuer: config.publicBaseUrl });
  const authRepo = createAuthRepo(db);
  const sessions = createSessionService({ repo: authRepo, tx, tokens, secrets, clock, record });
  const passwords = createPasswordHasher(options.passwordPool);
  const auth = createAuthService({ repo: authRepo, tx, clock, users, sessions, passwords, record });

  return {
    config,
    clock,
    database,
    secrets,
    tenants,
    users,
    keys,
    tokens,
    sessions,
    passwords,
    auth,
    guardDeps: {
      findTenant: (id: string) => tenants.findTenant(id),
      verifyApiKey: (tenantId: string, raw: string) => tenants.verifyApiKey(tenantId, raw),
      verifyAccessToken: (token: string) => sessions.verifyAccessToken(token),
    },
    async close(): Promise<void> {
      keys.stop();
      await database.close();
    },
  };
}

export type Container = Awaited<ReturnType<typeof createContainer>>;
