import type { Logger } from 'pino';
import type { Config } from './config.js';
import { systemClock, type Clock } from './platform/clock.js';
import { openDatabase, type Database, type DbOrTx } from './platform/db/client.js';
import { runMigrations } from './platform/db/migrate.js';
import { txRunner } from './platform/db/tx.js';
import { createSecretBox, resolveMasterKey } from './platform/crypto/secrets.js';
import { createLogger } from './platform/log/logger.js';
import { enqueueMail, type MailMessage } from './platform/mail/outbox.js';
import { renderMail } from './platform/mail/render.js';
import { createMailTransport } from './platform/mail/select-transport.js';
import type { MailTransport } from './platform/mail/transport.js';
import { createMailWorker, type MailWorkerOptions } from './platform/mail/worker.js';
import { RATE_LIMIT_PREFIX, type RateLimiter } from './platform/ratelimit/limiter.js';
import { createMemoryRateLimiter } from './platform/ratelimit/memory.js';
import { closeRedis, createRedisRateLimiter, openRedis } from './platform/ratelimit/redis.js';
import { createKeyRing } from './modules/auth/keys.js';
import { createAuthMailer } from './modules/auth/mailer.js';
import { createOneTimeRepo } from './modules/auth/one-time-repo.js';
import { createOneTimeService } from './modules/auth/one-time.js';
import { createPasswordHasher } from './modules/auth/passwords.js';
import { createRecoveryService } from './modules/auth/recovery.js';
import { createAuthRepo } from './modules/auth/repo.js';
import { createAuthService } from './modules/auth/service.js';
import { createSessionService, type SecurityEvent, type SecurityEventSink } from './modules/auth/sessions.js';
import { createTokenService } from './modules/auth/tokens.js';
import { createTwoFactorService } from './modules/auth/two-factor.js';
import { createIdpConfigService } from './modules/auth/idp/config.js';
import { createIdpRepo } from './modules/auth/idp/repo.js';
import { createIdpLoginService } from './modules/auth/idp/service.js';
import { createVerificationService } from './modules/auth/verification.js';
import { createTenantsRepo } from './modules/tenants/repo.js';
import { createTenantsService } from './modules/tenants/service.js';
import { createAuditRepo } from './modules/audit/repo.js';
import { createAuditService } from './modules/audit/service.js';
import { createUsersRepo } from './modules/users/repo.js';
import { createUsersService } from './modules/users/service.js';
import type { UserRow } from './modules/users/table.js';
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
import { createIdvHttpAdapter } from './providers/idv/http.js';
import type { IdvPort } from './providers/idv/port.js';
import { createOidcClient, type OidcPort } from './providers/idp/oidc.js';
import { createBankLinkModule } from './modules/bank-link/module.js';
import { createBackgroundRunner } from './platform/module/background.js';
import { createDomainHooks } from './platform/module/hooks.js';
import type { BastionModule, Platform } from './platform/module/module.js';

export interface ContainerOptions {
  config: Config;
  /** An already opened database (tests); otherwise opened from the config. */
  database?: Database;
  clock?: Clock;
  /** The process logger (the app's); background work (the mail worker) logs through it. */
  logger?: Logger;
  /** Password hashing concurrency (tests of the bounded queue). */
  passwordPool?: { maxConcurrent?: number; maxQueue?: number };
  /** Replaces the transport chosen from the config (SMTP_URL, else .eml files). */
  mailTransport?: MailTransport;
  /** Tuning of the mail worker (tests: small batches, few attempts). */
  mailWorker?: Pick<MailWorkerOptions, 'batchSize' | 'maxAttempts' | 'pollIntervalMs' | 'leaseMs' | 'tenantIds'>;
  rateLimit?: {
    /** Requests per client IP per window, all routes (default 600 a minute). */
    globalMax?: number;
    globalWindowMs?: number;
    /** A sub-namespace of `bastion:rl:` for every key (tests sharing one Redis). */
    namespace?: string;
    /** Feature limits in memory even when REDIS_URL is set (tests that move the injected clock). */
    memory?: boolean;
    /** Logins per client address per minute (default 30). The benchmark raises it: its load comes from one address. */
    loginPerIp?: number;
  };
  /** Replaces the identity-verification HTTP adapter. */
  idv?: IdvPort;
  /** Replaces the OpenID Connect relying-party adapter. */
  oidc?: OidcPort;
}

/** The composition root: config -> database -> providers -> repos -> services. Plain factories, no DI framework. */
export async function createContainer(options: ContainerOptions) {
  const { config } = options;
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? createLogger(config.logLevel);
  const database =
    options.database ??
    (await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.databaseUrl ? undefined : config.dataDir }));
  // Migrations first (under an advisory lock on PostgreSQL): everything below reads tables.
  await runMigrations(database);
  const db = database.db;
  const tx = txRunner(db);
  const secrets = await createSecretBox(db, resolveMasterKey(config.masterKey, config.dataDir));

  // Rate limits: Redis when REDIS_URL is set (shared by every instance), memory otherwise.
  const redis = config.redisUrl ? openRedis(config.redisUrl, logger) : undefined;
  const keyPrefix = RATE_LIMIT_PREFIX + (options.rateLimit?.namespace ? `${options.rateLimit.namespace}:` : '');
  const limiter: RateLimiter = redis && !options.rateLimit?.memory
    ? createRedisRateLimiter(redis, { prefix: keyPrefix })
    : createMemoryRateLimiter({ clock, prefix: keyPrefix });
  // The global per-IP net counts in Redis too when there is one; in memory it keeps its own
  // bounded map, so a flood of addresses cannot evict the feature limits' windows.
  const globalLimiter: RateLimiter = redis
    ? createRedisRateLimiter(redis, { prefix: keyPrefix })
    : createMemoryRateLimiter({ clock, prefix: keyPrefix, maxKeys: 10_000 });
  const rateLimit = {
    limiter,
    redis,
    keyPrefix,
    global: { max: options.rateLimit?.globalMax ?? 600, windowMs: options.rateLimit?.globalWindowMs ?? 60_000, limiter: globalLimiter },
  };

  const hooks = createDomainHooks();
  const background = createBackgroundRunner(logger);
  // Read at call time: a test server learns its port after the container is built.
  const publicBaseUrl = () => config.publicBaseUrl;
  const platform: Platform = { config, clock, logger, database, db, tx, secrets, limiter, hooks, background, publicBaseUrl };
  /** The modules in dependency order; the app registers their routes in this order. */
  const modules: BastionModule[] = [];

  const tenants = createTenantsService({ repo: createTenantsRepo(db), clock });
  const users = createUsersService({ repo: createUsersRepo(db), tx, clock });
  const audit = createAuditService({ repo: createAuditRepo(db), clock });
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
    db,
    repo: createIdentityRepo(db),
    tx,
    clock,
    sources: [userIdentitySource(users), kyc.identityFields, accreditations.identityFields],
    userExists: async (tenantId, userId) => Boolean(await users.findRow(tenantId, userId)),
  });

  // Mail: written to the outbox in the caller's transaction, delivered by the worker.
  const mailTransport = options.mailTransport ?? createMailTransport({ smtpUrl: config.smtpUrl, dataDir: config.dataDir }, clock);
  const mailWorker = createMailWorker({ db, transport: mailTransport, clock, logger, from: config.mailFrom, ...options.mailWorker });

  // Security events of the auth flows land in the append-only audit log.
  const auditInput = (event: SecurityEvent) => {
    const actor = event.actor ?? (event.userId ? { type: 'user' as const, id: event.userId } : { type: 'anonymous' as const });
    return { type: event.type, actorType: actor.type, actorId: actor.id ?? null, subjectUserId: event.userId ?? null, details: event.details };
  };
  const record: SecurityEventSink = Object.assign(
    async (txDb: DbOrTx | undefined, tenantId: string, event: SecurityEvent) => {
      await audit.record(txDb, tenantId, auditInput(event));
    },
    { statement: (tenantId: string, event: SecurityEvent) => audit.statement(tenantId, auditInput(event)) },
  );

  // Authentication.
  const keys = createKeyRing({ db, secrets, clock });
  await keys.init();
  const tokens = createTokenService({ keys, clock, issuer: config.publicBaseUrl });
  const authRepo = createAuthRepo(db);
  const sessions = createSessionService({ db, repo: authRepo, tx, tokens, secrets, clock, record });
  const passwords = createPasswordHasher(options.passwordPool);
  const oneTime = createOneTimeService({ repo: createOneTimeRepo(db), clock });
  const mailer = createAuthMailer({ limiter, clock, publicBaseUrl: config.publicBaseUrl, oneTime });
  const verification = createVerificationService({ tx, users, oneTime, mailer });
  const recovery = createRecoveryService({ tx, clock, users, oneTime, mailer, passwords, repo: authRepo, sessions, record });
  const twoFactor = createTwoFactorService({ tx, clock, users, repo: authRepo, oneTime, mailer, passwords, sessions, record });
  const startSecondFactor = async (tenantId: string, user: UserRow) => {
    const tenant = await tenants.findTenant(tenantId);
    if (!tenant) throw new Error('tenant vanished during login');
    return twoFactor.startChallenge(tenant, user);
  };
  const auth = createAuthService({
    repo: authRepo,
    tx,
    clock,
    users,
    sessions,
    passwords,
    limiter,
    record,
    loginPerIp: options.rateLimit?.loginPerIp,
    onRegistered: (txDb, tenant, user) => verification.sendInitial(txDb, tenant, user),
    startSecondFactor,
  });

  // Login through each tenant's external OpenID provider.
  const idpRepo = createIdpRepo(db);
  const idpCallbackUrl = () => `${config.publicBaseUrl}/auth/idp/callback`;
  const idpConfig = createIdpConfigService({ repo: idpRepo, secrets, clock, callbackUrl: idpCallbackUrl });
  const idpLogin = createIdpLoginService({
    repo: idpRepo,
    authRepo,
    tx,
    clock,
    secrets,
    config: idpConfig,
    oidc: options.oidc ?? createOidcClient(),
    users,
    sessions,
    record,
    startSecondFactor,
    callbackUrl: idpCallbackUrl,
    logger,
  });

  modules.push(createBankLinkModule(platform, { audit }));

  return {
    config,
    clock,
    logger,
    database,
    secrets,
    tenants,
    users,
    mail: {
      /** Writes a mail in the caller's transaction (see enqueueMail); returns its id. */
      enqueue: (db: DbOrTx, tenantId: string, message: MailMessage) => enqueueMail(db, tenantId, message, { now: clock.now() }),
      render: renderMail,
      /** Started by main.ts after listen; tests call drainOnce(). */
      worker: mailWorker,
      transport: mailTransport,
    },
    audit,
    rateLimit,
    keys,
    tokens,
    sessions,
    passwords,
    oneTime,
    verification,
    recovery,
    twoFactor,
    auth,
    idpConfig,
    idpLogin,
    idvConfig,
    kyc,
    kycWebhooks,
    idvB,
    accreditations,
    identity,
    guardDeps: {
      findTenant: (id: string) => tenants.findTenant(id),
      verifyApiKey: (tenantId: string, raw: string) => tenants.verifyApiKey(tenantId, raw),
      verifyAccessToken: (token: string) => sessions.verifyAccessToken(token),
    },
    platform,
    modules,
    /** Starts the background work of every module (after listen). */
    start(): void {
      mailWorker.start();
      for (const module of modules) module.start?.();
    },
    async close(): Promise<void> {
      // Background work first (it may be mid-batch on the database), then connections.
      for (const module of [...modules].reverse()) await module.stop?.();
      await background.drain();
      keys.stop();
      await passwords.close();
      await mailWorker.stop();
      await mailTransport.close();
      if (redis) await closeRedis(redis);
      await database.close();
    },
  };
}

export type Container = Awaited<ReturnType<typeof createContainer>>;
