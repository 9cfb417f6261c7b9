import { mkdtempSync, readFileSync } from 'node:fs';
import { inject } from 'vitest';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { Writable } from 'node:stream';
import { buildApp, type BuildAppOptions } from '../../src/app.js';
import { apiClient, type ApiClient } from './api.js';
import { loadConfig } from '../../src/config.js';
import { createContainer, type Container, type ContainerOptions } from '../../src/container.js';
import { ManualClock } from '../../src/platform/clock.js';
import { openDatabase, type Database } from '../../src/platform/db/client.js';
import type { UndeclaredAnswer } from '../../src/platform/http/declared-answers.js';
import type { Role } from '../../src/platform/http/guards.js';
import { createLogger } from '../../src/platform/log/logger.js';

/** The migrated embedded database built once by global-setup.ts (undefined on PostgreSQL). */
export function migratedImage(): Blob | undefined {
  const file = process.env.DATABASE_URL ? '' : inject('pgliteImage');
  return file ? new Blob([readFileSync(file)]) : undefined;
}

export const TEST_MASTER_KEY = '5e'.repeat(32);
export const usingPostgres = Boolean(process.env.DATABASE_URL);

/** Every log line the app wrote, for tests that prove no secret reaches the logs. */
export class LogCapture extends Writable {
  readonly lines: string[] = [];
  override _write(chunk: Buffer, _encoding: string, done: () => void): void {
    this.lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    done();
  }
  text(): string {
    return this.lines.join('\n');
  }
}

export interface TestTenant {
  tenantId: string;
  apiKey: string;
  keyId: string;
}

export interface Harness {
  app: FastifyInstance;
  container: Container;
  database: Database;
  clock: ManualClock;
  logs: LogCapture;
  dataDir: string;
  tenant: TestTenant;
  /** With `listen: true`: the loopback address the app listens on (also PUBLIC_BASE_URL). */
  baseUrl: string;
  newTenant(): Promise<TestTenant>;
  /** Creates a user through the service (no HTTP) and returns its id. */
  createUser(tenant?: TestTenant, email?: string, role?: Role): Promise<string>;
  /** A real access token for a user (a new session), as login would give. */
  tokenFor(userId: string, tenant?: TestTenant, role?: Role): Promise<string>;
  /** Headers for an API-key call of the tenant. */
  keyHeaders(tenant?: TestTenant): Record<string, string>;
  bearerHeaders(token: string, tenant?: TestTenant): Record<string, string>;
  inject(options: InjectOptions): Promise<LightMyRequestResponse>;
  /** The typed client (test/helpers/api.ts) over inject, sending these headers on every call. */
  api(headers?: Record<string, string>): ApiClient;
  close(): Promise<void>;
}

export interface HarnessOptions extends Partial<Omit<ContainerOptions, 'config' | 'database'>> {
  /** Adds routes to the app before it is ready (tests of the pipeline itself). */
  beforeReady?: (app: FastifyInstance) => unknown;
  /** Extra environment for loadConfig (e.g. SMTP_URL). */
  env?: Record<string, string | undefined>;
  /**
   * Listen on a loopback port, and make that address PUBLIC_BASE_URL, so provider sandboxes
   * and webhooks run over real HTTP.
   */
  listen?: boolean;
  /** Shorter server timeouts, for tests of the timeouts themselves. */
  serverTimeouts?: BuildAppOptions['serverTimeouts'];
}

/** The answers routes gave without declaring their status, one a line. */
export function undeclaredMessage(answers: UndeclaredAnswer[]): string {
  const lines = answers.map((a) => `  ${a.method} ${a.url} answered ${a.statusCode}${a.code ? ` (${a.code})` : ''}`);
  return `${answers.length} answer(s) with a status the route's schema.response does not declare (declare it with errorResponses(...)):\n${lines.join('\n')}`;
}

/**
 * The embedded database of this test process (a vitest fork runs its files one after
 * another in one process: isolate false), opened once from the migrated image and shared by
 * every harness of the fork, as the harnesses of a PostgreSQL pass share one database: each
 * harness works in its own tenants. Opening the image was about half of a harness's start.
 * Never closed by a harness (the fork's exit ends it).
 */
let forkDatabase: Promise<Database> | undefined;

async function harnessDatabase(databaseUrl: string | undefined): Promise<Database> {
  if (databaseUrl) return openDatabase({ databaseUrl, poolSize: 30 });
  forkDatabase ??= openDatabase({ image: migratedImage() });
  const shared = await forkDatabase;
  return { ...shared, close: async () => undefined };
}

export async function createHarness(options: HarnessOptions = {}): Promise<Harness> {
  const dataDir = mkdtempSync(join(tmpdir(), 'bastion-test-'));
  const config = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    DATABASE_URL: process.env.DATABASE_URL,
    REDIS_URL: process.env.REDIS_URL,
    PUBLIC_BASE_URL: 'http://bastion.test',
    // One master key for every test: on PostgreSQL all harnesses share the data keys.
    MASTER_KEY: TEST_MASTER_KEY,
    // Many harnesses run at once: the local chains never take the fixed 8545/6006 of `npm start`.
    EVM_LOCAL_RPC_PORT: '0',
    XRPL_LOCAL_PORT: '0',
    ...options.env,
  });
  const database = await harnessDatabase(config.databaseUrl);
  const clock = (options.clock as ManualClock | undefined) ?? new ManualClock(new Date());
  const logs = new LogCapture();
  const logger = createLogger('info', logs);
  const { beforeReady: _beforeReady, env: _env, serverTimeouts, ...containerOptions } = options;
  // The mail worker of this harness delivers only its own tenants' mail (suites share a PostgreSQL).
  const tenantIds: string[] = [];
  const container = await createContainer({
    ...containerOptions,
    mailWorker: { tenantIds: () => tenantIds, ...containerOptions.mailWorker },
    // Own rate-limit keys per harness: suites share one Redis and all come from 127.0.0.1.
    rateLimit: { namespace: `test-${randomUUID()}`, ...containerOptions.rateLimit },
    config,
    database,
    clock,
    logger,
  });
  // Every answer must be one its route declares (declared-answers.ts): close() fails the file otherwise.
  const undeclared = new Map<string, UndeclaredAnswer>();
  const app = await buildApp(container, logger, {
    serverTimeouts,
    onUndeclaredAnswer: (answer) => undeclared.set(`${answer.method} ${answer.url} ${answer.statusCode} ${answer.code ?? ''}`, answer),
  });
  await options.beforeReady?.(app);
  await app.ready();
  let baseUrl = config.publicBaseUrl;
  if (options.listen) {
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    if (!address || typeof address === 'string') throw new Error('the test server has no TCP address');
    baseUrl = `http://127.0.0.1:${address.port}`;
    container.config.publicBaseUrl = baseUrl;
  }

  const newTenant = async (): Promise<TestTenant> => {
    const created = await container.tenants.createTenant(`test-${randomUUID()}`);
    tenantIds.push(created.tenantId);
    return { tenantId: created.tenantId, apiKey: created.apiKey, keyId: created.keyId };
  };
  const tenant = await newTenant();

  const harness: Harness = {
    app,
    container,
    database,
    clock,
    logs,
    dataDir,
    tenant,
    baseUrl,
    newTenant,
    async createUser(t = tenant, email = `u-${randomUUID()}@example.com`, role: Role = 'user') {
      const row = await container.users.createUser(t.tenantId, { email, role });
      return row.id;
    },
    async tokenFor(userId, t = tenant, role?: Role) {
      const row = await container.users.findRow(t.tenantId, userId);
      const pair = await container.sessions.start(t.tenantId, userId, role ?? row?.role ?? 'user');
      return pair.accessToken;
    },
    keyHeaders: (t = tenant) => ({ 'x-tenant-id': t.tenantId, 'x-api-key': t.apiKey }),
    bearerHeaders: (token, t = tenant) => ({ 'x-tenant-id': t.tenantId, authorization: `Bearer ${token}` }),
    inject: (opts) => app.inject(opts),
    api: (headers) => apiClient((opts) => app.inject(opts), headers),
    async close() {
      // As the server closes (server.ts): a connection that goes idle after the stop (a webhook the
      // sandbox was still sending) is closed too, instead of being held to the keep-alive timeout.
      await app.closeGracefully();
      await container.close();
      if (undeclared.size > 0) throw new Error(undeclaredMessage([...undeclared.values()]));
    },
  };
  return harness;
}
