import { createIdempotencyStore } from '../idempotency/store.js';
import type { Logger } from 'pino';
import { maskedUrl, type Config } from '../../config.js';
import { systemClock, type Clock } from '../clock.js';
import { createSecretBox, masterKeySource, resolveMasterKey } from '../crypto/secrets.js';
import { openDatabase, type Database, type DbOrTx } from '../db/client.js';
import { runMigrations } from '../db/migrate.js';
import { txRunner } from '../db/tx.js';
import { createLogger } from '../log/logger.js';
import { enqueueMail, type MailMessage } from '../mail/outbox.js';
import { renderMail } from '../mail/render.js';
import { createMailTransport } from '../mail/select-transport.js';
import type { MailTransport } from '../mail/transport.js';
import { createMailWorker, type MailWorkerOptions } from '../mail/worker.js';
import { RATE_LIMIT_PREFIX, type RateLimiter } from '../ratelimit/limiter.js';
import { createMemoryRateLimiter } from '../ratelimit/memory.js';
import { closeRedis, createRedisBreaker, createRedisRateLimiter, openRedis, type RedisTimings } from '../ratelimit/redis.js';
import { createBackgroundRunner } from './background.js';
import { createDomainHooks } from './hooks.js';
import { createInFlightSweeper, type InFlightFlow } from './in-flight.js';
import type { Chains, Platform } from './module.js';
import { createProviderSettings } from '../provider-settings/settings.js';
import { createProviders } from '../providers/service.js';
import { createMetrics } from '../metrics/metrics.js';
import { createMailQueue } from '../mail/queue.js';

export interface PlatformOptions {
  config: Config;
  /** The chains, built by the composition root (src/chains.ts): the platform holds their ports only. */
  chains: Chains;
  /** An already opened database (tests); otherwise opened from the config. */
  database?: Database;
  clock?: Clock;
  /** The process logger (the app's); background work logs through it. */
  logger?: Logger;
  /** Replaces the transport chosen from the config (SMTP_URL, else .eml files). */
  mailTransport?: MailTransport;
  /** Tuning of the mail worker (tests: small batches, few attempts). */
  mailWorker?: Pick<MailWorkerOptions, 'batchSize' | 'maxAttempts' | 'pollIntervalMs' | 'leaseMs' | 'tenantIds'>;
  /** The in-flight sweeper: how often it sweeps (default 1 s) and how long a claim holds a row (default 5 s). */
  inFlight?: { intervalMs?: number; leaseMs?: number };
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
    /** Redis timeouts and probe interval (tests of a Redis that stops answering). */
    redis?: RedisTimings;
  };
}

/**
 * The parts with no business rules, built once: database (migrated), secrets, rate limits,
 * mail, hooks and the background runner. Modules are built on top of it.
 */
export async function createPlatform(options: PlatformOptions) {
  const { config } = options;
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? createLogger(config.logLevel);
  const database =
    options.database ??
    (await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.databaseUrl ? undefined : config.dataDir }));
  // Migrations first (under an advisory lock on PostgreSQL): everything below reads tables.
  await runMigrations(database, { sandboxes: config.sandboxes });
  const db = database.db;
  const secrets = await createSecretBox(db, resolveMasterKey(config.masterKey, config.dataDir), masterKeySource(config.masterKey, config.dataDir));

  // Rate limits: Redis when REDIS_URL is set (shared by every instance), memory otherwise.
  // Every Redis command goes through one circuit breaker (redis.ts): while Redis does not
  // answer, the global net is skipped and the feature limits answer 503, without waiting.
  const redisTimings = options.rateLimit?.redis;
  const redis = config.redisUrl ? openRedis(config.redisUrl, redisTimings) : undefined;
  const breaker = redis ? createRedisBreaker(redis, logger, redisTimings) : undefined;
  if (breaker && !(await breaker.whenAvailable(redisTimings?.connectTimeoutMs ?? 1_000))) {
    logger.warn({ redisUrl: maskedUrl(config.redisUrl!) }, 'REDIS_URL does not answer at start: the service starts; feature rate limits answer 503 until Redis answers');
  }
  const keyPrefix = RATE_LIMIT_PREFIX + (options.rateLimit?.namespace ? `${options.rateLimit.namespace}:` : '');
  const limiter: RateLimiter =
    redis && !options.rateLimit?.memory
      ? createRedisRateLimiter(redis, { prefix: keyPrefix, breaker })
      : createMemoryRateLimiter({ clock, prefix: keyPrefix });
  // The global per-IP net counts in Redis too when there is one; in memory it keeps its own
  // bounded map, so a flood of addresses cannot evict the feature limits' windows.
  const globalLimiter: RateLimiter = redis
    ? createRedisRateLimiter(redis, { prefix: keyPrefix, breaker })
    : createMemoryRateLimiter({ clock, prefix: keyPrefix, maxKeys: 10_000 });
  const rateLimit = {
    limiter,
    redis,
    breaker,
    keyPrefix,
    global: { max: options.rateLimit?.globalMax ?? 600, windowMs: options.rateLimit?.globalWindowMs ?? 60_000, limiter: globalLimiter },
  };

  // Mail: written to the outbox in the caller's transaction, delivered by the worker.
  const transport = options.mailTransport ?? createMailTransport({ smtpUrl: config.smtpUrl, dataDir: config.dataDir }, clock);
  const metrics = createMetrics();
  const mailOutcomes = metrics.counter('bastion_mail_deliveries_total', 'Mail delivery attempts by outcome (sent, retry, failed: given up)', ['outcome']);
  const worker = createMailWorker({ db, transport, clock, logger, from: config.mailFrom, onOutcome: (outcome) => mailOutcomes.inc({ outcome }), ...options.mailWorker });
  const mail = {
    /** Writes a mail in the caller's transaction (see enqueueMail); returns its id. */
    enqueue: (txDb: DbOrTx, tenantId: string, message: MailMessage) => enqueueMail(txDb, tenantId, message, { now: clock.now() }),
    render: renderMail,
    /** Started with the service; tests call drainOnce(). */
    worker,
    transport,
  };

  const background = createBackgroundRunner(logger);
  const flows: InFlightFlow<never>[] = [];
  const sweeper = createInFlightSweeper({ clock, logger, flows: () => flows, ...options.inFlight });
  const providerSettings = createProviderSettings({ db, secrets, clock });
  // What the platform itself can say at a scrape; modules add theirs (docs/operations.md, "Metrics").
  const mailQueue = createMailQueue(db);
  metrics.gauge('bastion_mail_backlog', 'Mail in the outbox not sent yet (pending, due or waiting for a retry)', () => mailQueue.backlog());
  metrics.gauge(
    'bastion_value_moves_in_flight',
    'Value moves accepted and not final yet, by flow (custody transfers, XRPL submissions, custody-b broadcasts)',
    async () => Promise.all(flows.filter((f) => f.pending).map(async (f) => ({ labels: { flow: f.name }, value: await f.pending!() }))),
    ['flow'],
  );
  const pool = database.pool;
  if (pool) {
    metrics.gauge(
      'bastion_db_pool_connections',
      'PostgreSQL pool connections by state (total, idle, waiting: requests waiting for a connection)',
      () => [
        { labels: { state: 'total' }, value: pool.totalCount },
        { labels: { state: 'idle' }, value: pool.idleCount },
        { labels: { state: 'waiting' }, value: pool.waitingCount },
      ],
      ['state'],
    );
  }
  if (breaker) metrics.gauge('bastion_redis_available', '1 while Redis answers, 0 while the circuit breaker skips it', () => (breaker.available() ? 1 : 0));
  const platform: Platform = {
    config,
    clock,
    logger,
    database,
    db,
    tx: txRunner(db),
    secrets,
    limiter,
    hooks: createDomainHooks(),
    background,
    providerSettings,
    chains: options.chains,
    providers: createProviders({ db, clock, settings: providerSettings, sandboxes: () => config.sandboxes, publicBaseUrl: () => config.publicBaseUrl }),
    idempotency: createIdempotencyStore({ db, clock, logger, background }),
    metrics,
    inFlight: {
      register: (flow) => {
        flows.push(flow as InFlightFlow<never>);
      },
      sweeper,
    },
    // Read at call time: a test server learns its port after the platform is built.
    publicBaseUrl: () => config.publicBaseUrl,
  };

  return {
    platform,
    rateLimit,
    mail,
    start(): void {
      worker.start();
      sweeper.start();
    },
    /** Stops background work first (it may be mid-batch on the database), then connections. */
    async close(): Promise<void> {
      await sweeper.stop();
      await background.close();
      await worker.stop();
      await transport.close();
      breaker?.stop();
      if (redis) await closeRedis(redis);
      await database.close();
    },
  };
}
