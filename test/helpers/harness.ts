import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { Writable } from 'node:stream';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createContainer, type Container, type ContainerOptions } from '../../src/container.js';
import { ManualClock } from '../../src/platform/clock.js';
import { openDatabase, type Database } from '../../src/platform/db/client.js';
import type { AccessClaims, Role } from '../../src/platform/http/guards.js';
import { createLogger } from '../../src/platform/log/logger.js';

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
  /** An access token for a user, from the test issuer. */
  tokenFor(userId: string, tenant?: TestTenant, role?: Role): Promise<string>;
  /** Headers for an API-key call of the tenant. */
  keyHeaders(tenant?: TestTenant): Record<string, string>;
  bearerHeaders(token: string, tenant?: TestTenant): Record<string, string>;
  inject(options: InjectOptions): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

/**
 * A test-only token issuer: opaque random tokens mapped to claims in memory. Lets the guard,
 * the role model and "K or B" be tested without depending on the token format.
 */
function testIssuer() {
  const issued = new Map<string, AccessClaims>();
  return {
    issue(claims: AccessClaims): string {
      const token = randomUUID().replace(/-/g, '') + randomUUID().replace(/-/g, '');
      issued.set(token, claims);
      return token;
    },
    verify: async (token: string) => issued.get(token),
  };
}

export interface HarnessOptions extends Partial<Omit<ContainerOptions, 'config' | 'database'>> {
  /** Adds routes to the app before it is ready (tests of the pipeline itself). */
  beforeReady?: (app: FastifyInstance) => unknown;
  /**
   * Listen on a loopback port, and make that address PUBLIC_BASE_URL, so provider sandboxes
   * and webhooks run over real HTTP.
   */
  listen?: boolean;
  /** Extra environment variables for the config (e.g. IDV_SANDBOX). */
  env?: Record<string, string>;
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
    ...options.env,
  });
  const database = await openDatabase({ databaseUrl: config.databaseUrl, poolSize: 30 });
  const clock = (options.clock as ManualClock | undefined) ?? new ManualClock(new Date());
  const issuer = testIssuer();
  const container = await createContainer({
    config,
    database,
    clock,
    verifyAccessToken: options.verifyAccessToken ?? issuer.verify,
  });
  const logs = new LogCapture();
  const app = await buildApp(container, createLogger('info', logs));
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
      return issuer.issue({ sub: userId, tid: t.tenantId, sid: randomUUID(), role: role ?? row?.role ?? 'user' });
    },
    keyHeaders: (t = tenant) => ({ 'x-tenant-id': t.tenantId, 'x-api-key': t.apiKey }),
    bearerHeaders: (token, t = tenant) => ({ 'x-tenant-id': t.tenantId, authorization: `Bearer ${token}` }),
    inject: (opts) => app.inject(opts),
    async close() {
      await app.close();
      await container.close();
    },
  };
  return harness;
}
