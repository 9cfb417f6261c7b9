import type { FastifyInstance } from 'fastify';
import type { Metrics } from '../metrics/metrics.js';
import type { Logger } from 'pino';
import type { Config } from '../../config.js';
import type { Clock } from '../clock.js';
import type { SecretBox } from '../crypto/secrets.js';
import type { Database, Db } from '../db/client.js';
import type { RunInTx } from '../db/tx.js';
import type { RateLimiter } from '../ratelimit/limiter.js';
import type { BackgroundRunner } from './background.js';
import type { DomainHooks } from './hooks.js';
import type { InFlightFlow, InFlightSweeper } from './in-flight.js';
import type { ProviderSettings } from '../provider-settings/settings.js';
import type { Providers } from '../providers/service.js';
import type { IdempotencyStore } from '../idempotency/store.js';

/**
 * What every module is given: the platform parts with no business rules. A module reaches
 * another module only through that module's services (passed to its factory explicitly).
 */
export interface Platform {
  config: Config;
  clock: Clock;
  logger: Logger;
  database: Database;
  db: Db;
  tx: RunInTx;
  secrets: SecretBox;
  /** Feature rate limits (Redis when REDIS_URL is set, memory otherwise). */
  limiter: RateLimiter;
  /** In-process domain hooks: a module announces, others subscribe (no late-bound closures). */
  hooks: DomainHooks;
  /** Work that runs after the answer is sent; drained at shutdown and by tests. */
  background: BackgroundRunner;
  /**
   * Durable in-flight work (value moves): a module registers each flow whose rows must be
   * driven to a final state after a crash; the sweeper (started with the service) resumes rows
   * whose lease has passed, in one instance at a time.
   */
  inFlight: {
    register<Row>(flow: InFlightFlow<Row>): void;
    sweeper: InFlightSweeper;
  };
  /**
   * Per-tenant provider settings (base URL, public settings, sealed secrets), one table and one
   * CLI shape (`provider configure`); a module declares its providers here.
   */
  providerSettings: ProviderSettings;
  /** The chains (infrastructure, built once by the composition root: src/chains.ts), as their ports. */
  chains: Chains;
  /**
   * The providers (src/platform/providers): `port(tenantId, kind)` is the tenant's configured
   * provider or its sandbox; webhooks verified and deduplicated in one place.
   */
  providers: Providers;
  /**
   * The one idempotency store: routes declare `config.idempotency` and the platform claims
   * their keys here; services wrapping their own work use `idempotent(...)`.
   */
  idempotency: IdempotencyStore;
  /** Prometheus metrics: modules add gauges and counters of what they own (src/platform/metrics). */
  metrics: Metrics;
  /** The service's public address, read at call time (a test server learns its port late). */
  publicBaseUrl(): string;
}

/**
 * The chains every module uses, built once (src/chains.ts) and handed to the modules through the
 * platform: a module never builds a chain client, nor reaches another module's.
 */
/**
 * The chains' port types: each chain's port.ts (src/providers/evm-chain, src/providers/xrpl-ledger)
 * adds its entry by declaration merging, so the platform imports no provider file.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface ChainPorts {}

export interface Chains {
  /** The EVM chain (EVM_RPC_URL, else the local in-process chain), started on first use or at start; a failed start is retried on the next call. */
  evm(): Promise<ChainPorts extends { evm: infer P } ? P : never>;
  /** The XRPL ledger (XRPL_URL, else the stand-in when sandboxes are on, else a ledger that refuses every call). */
  xrpl: ChainPorts extends { xrpl: infer P } ? P : never;
  /** The XRPL network name wallets are registered under: `local` on the stand-in, else the ledger's (mainnet, testnet...). */
  xrplNetwork(): Promise<string>;
}

export interface ModuleRoutes {
  /** Tenant-scoped routes: each is guarded (tenant, then credential) before anything else runs. */
  tenant?: (scope: FastifyInstance) => void | Promise<void>;
  /** Routes outside tenancy: provider callbacks (signed), sandboxes, pages behind mailed links. */
  open?: (app: FastifyInstance) => void | Promise<void>;
}

/** A module's one entry returns this; the container keeps an ordered list of them. */
export interface BastionModule<S extends object = object> {
  name: string;
  services: S;
  routes?: ModuleRoutes;
  /**
   * Opens what the module serves on its own ports (the local chains): awaited before the app
   * listens; a failure stops the start. Tests' harness does not call it.
   */
  listen?: () => Promise<void>;
  /** Background work started once the service listens (workers, pollers). */
  start?: () => void;
  /**
   * Readiness of what the module depends on beyond the database (e.g. a chain): resolves to
   * facts GET /ready shows under `checks`, or throws when not ready (GET /ready answers 503).
   */
  ready?: () => Promise<Record<string, unknown>>;
  /** Stops background work; awaited at shutdown, modules in reverse order. */
  stop?: () => Promise<void>;
  /**
   * For modules whose rows hold blob keys (documents): does any row, of any tenant, point at
   * this blob? `storage gc` keeps a blob any module claims and removes old ones none claims.
   */
  referencesBlob?: (key: string) => Promise<boolean>;
}
