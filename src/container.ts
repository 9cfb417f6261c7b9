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
import { createAccreditationsRepo } from './modules/accreditations/repo.js';
import { createAccreditationsService } from './modules/accreditations/service.js';
import { createIdentityRepo } from './modules/identity/repo.js';
import { createIdentityService, type IdentityService } from './modules/identity/service.js';
import { userIdentitySource } from './modules/identity/sources.js';
import { createIdvBService, verifyRecordWallet } from './modules/kyc/idv-b.js';
import { createIdvConfigService } from './modules/kyc/idv-config.js';
import { createKycRepo } from './modules/kyc/repo.js';
import { createKycService } from './modules/kyc/service.js';
import { createKycTransitions } from './modules/kyc/transitions.js';
import { createKycWebhooks } from './modules/kyc/webhooks.js';
import type { DbOrTx } from './platform/db/client.js';
import { createIdvHttpAdapter } from './providers/idv/http.js';
import type { IdvPort } from './providers/idv/port.js';

export interface ContainerOptions {
  config: Config;
  /** An already opened database (tests); otherwise opened from the config. */
  database?: Database;
  clock?: Clock;
  /** Replaces the access-token verifier (tests of the guards). */
  verifyAccessToken?: (token: string) => Promise<AccessClaims | undefined>;
  /** Replaces the identity-verification HTTP adapter. */
  idv?: IdvPort;
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
  // Read at call time: a test server learns its port after the container is built.
  const publicBaseUrl = () => config.publicBaseUrl;

  // KYC and accreditations recompute the identity root in the transaction of each change;
  // the identity service reads their fields back through their services.
  // (identity is defined below; the closure runs only once requests flow.)
  const identityChanged = async (tenantId: string, userId: string, db: DbOrTx) => {
    await identity.recompute(tenantId, userId, db);
  };
  const kycRepo = createKycRepo(db);
  const idv = options.idv ?? createIdvHttpAdapter();
  const idvConfig = createIdvConfigService({ repo: kycRepo, secrets, clock, publicBaseUrl, sandboxEnabled: config.idvSandbox });
  const kycTransitions = createKycTransitions({ repo: kycRepo, users, clock, identityChanged });
  const kyc = createKycService({ repo: kycRepo, tx, clock, users, idv, idvConfig, transitions: kycTransitions, publicBaseUrl });
  const kycWebhooks = createKycWebhooks({ repo: kycRepo, tx, clock, idvConfig, transitions: kycTransitions, verifyWallet: verifyRecordWallet });
  const idvB = createIdvBService({ tx, clock, users, idv, idvConfig, transitions: kycTransitions, publicBaseUrl });
  const accreditations = createAccreditationsService({ repo: createAccreditationsRepo(db), tx, clock, users, identityChanged });
  const identity: IdentityService = createIdentityService({
    repo: createIdentityRepo(db),
    tx,
    clock,
    sources: [userIdentitySource(users), kyc.identityFields, accreditations.identityFields],
    userExists: async (tenantId, userId) => Boolean(await users.findRow(tenantId, userId)),
  });

  const verifyAccessToken =
    options.verifyAccessToken ?? (async (): Promise<AccessClaims | undefined> => undefined);

  return {
    config,
    clock,
    database,
    secrets,
    tenants,
    users,
    idvConfig,
    kyc,
    kycWebhooks,
    idvB,
    accreditations,
    identity,
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
