import type { Logger } from 'pino';
import type { Config } from './config.js';
import { systemClock, type Clock } from './platform/clock.js';
import { openDatabase, type Database, type DbOrTx } from './platform/db/client.js';
import { runMigrations } from './platform/db/migrate.js';
import { txRunner } from './platform/db/tx.js';
import { createSecretBox, resolveMasterKey } from './platform/crypto/secrets.js';
import type { AccessClaims } from './platform/http/guards.js';
import { createLogger } from './platform/log/logger.js';
import { enqueueMail, type MailMessage } from './platform/mail/outbox.js';
import { renderMail } from './platform/mail/render.js';
import { createMailTransport } from './platform/mail/select-transport.js';
import type { MailTransport } from './platform/mail/transport.js';
import { createMailWorker, type MailWorkerOptions } from './platform/mail/worker.js';
import { RATE_LIMIT_PREFIX, type RateLimiter } from './platform/ratelimit/limiter.js';
import { createMemoryRateLimiter } from './platform/ratelimit/memory.js';
import { closeRedis, createRedisRateLimiter, openRedis } from './platform/ratelimit/redis.js';
import { createTenantsRepo } from './modules/tenants/repo.js';
import { createTenantsService } from './modules/tenants/service.js';
import { createAuditRepo } from './modules/audit/repo.js';
import { createAuditService } from './modules/audit/service.js';
import { createUsersRepo } from './modules/users/repo.js';
import { createUsersService } from './modules/users/service.js';

export interface ContainerOptions {
  config: Config;
  /** An already opened database (tests); otherwise opened from the config. */
  database?: Database;
  clock?: Clock;
  /** The process logger (the app's); background work (the mail worker) logs through it. */
  logger?: Logger;
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
  };
  /** Replaces the access-token verifier (tests of the guards). */
  verifyAccessToken?: (token: string) => Promise<AccessClaims | undefined>;
}

/** The composition root: config -> database -> repos -> services. Plain factories, no DI framework. */
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

  const tenants = createTenantsService({ repo: createTenantsRepo(db), clock });
  const users = createUsersService({ repo: createUsersRepo(db), tx, clock });
  const audit = createAuditService({ repo: createAuditRepo(db), clock });

  const mailTransport = options.mailTransport ?? createMailTransport({ smtpUrl: config.smtpUrl, dataDir: config.dataDir }, clock);
  const mailWorker = createMailWorker({ db, transport: mailTransport, clock, logger, from: config.mailFrom, ...options.mailWorker });
  const mail = {
    /** Writes a mail in the caller's transaction (see enqueueMail); returns its id. */
    enqueue: (db: DbOrTx, tenantId: string, message: MailMessage) => enqueueMail(db, tenantId, message, { now: clock.now() }),
    render: renderMail,
    /** Started by main.ts after listen; tests call drainOnce(). */
    worker: mailWorker,
    transport: mailTransport,
  };

  const redis = config.redisUrl ? openRedis(config.redisUrl, logger) : undefined;
  const keyPrefix = RATE_LIMIT_PREFIX + (options.rateLimit?.namespace ? `${options.rateLimit.namespace}:` : '');
  const limiter: RateLimiter = redis
    ? createRedisRateLimiter(redis, { prefix: keyPrefix })
    : createMemoryRateLimiter({ clock, prefix: keyPrefix });
  const rateLimit = {
    /** For the feature limits (login, OTP, resend...): Redis when REDIS_URL is set, memory otherwise. */
    limiter,
    redis,
    keyPrefix,
    global: { max: options.rateLimit?.globalMax ?? 600, windowMs: options.rateLimit?.globalWindowMs ?? 60_000 },
  };

  const verifyAccessToken =
    options.verifyAccessToken ?? (async (): Promise<AccessClaims | undefined> => undefined);

  return {
    config,
    clock,
    database,
    secrets,
    tenants,
    users,
    audit,
    mail,
    rateLimit,
    guardDeps: {
      findTenant: (id: string) => tenants.findTenant(id),
      verifyApiKey: (tenantId: string, raw: string) => tenants.verifyApiKey(tenantId, raw),
      verifyAccessToken,
    },
    async close(): Promise<void> {
      // Background work first (it may be mid-batch on the database), then connections.
      await mailWorker.stop();
      await mailTransport.close();
      if (redis) await closeRedis(redis);
      await database.close();
    },
  };
}

export type Container = Awaited<ReturnType<typeof createContainer>>;
