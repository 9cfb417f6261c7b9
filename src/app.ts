import { servedSandboxes, type Config } from './config.js';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Container } from './container.js';
import { registerErrorHandlers } from './platform/http/error-handler.js';
import { clientErrorHandler, frameworkErrors } from './platform/http/client-error.js';
import { perPartValidators, registerInputChecks } from './platform/http/input.js';
import { declarePlatformAnswers, recordUndeclaredAnswers, type UndeclaredAnswer } from './platform/http/declared-answers.js';
import { swaggerOptions } from './platform/http/openapi.js';
import { installGuards } from './platform/http/guards.js';
import { installIdempotency } from './platform/idempotency/http.js';
import { registerSecurityHeaders } from './platform/http/security-headers.js';
import { registerCors } from './platform/http/cors.js';
import { registerConsole } from './platform/http/console.js';
import { activeTelemetry } from './platform/telemetry/settings.js';
import { AccessLogController } from './platform/log/access-log.js';
import { lazyRequestLogger } from './platform/log/request-logger.js';
import { installRouteRateLimits } from './platform/ratelimit/route.js';
import { registerGlobalRateLimit } from './platform/ratelimit/global.js';
import { genRequestId } from './platform/http/request-id.js';
import { installGracefulClose } from './platform/http/graceful-close.js';
import { closeConnectionsWithUnreadBodies, SERVER_TIMEOUTS, serverTimeoutOptions, type ServerTimeouts } from './platform/http/connection.js';

export const BODY_LIMIT_BYTES = 1024 * 1024;

const EMAIL_FORMAT = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** A hop count becomes "trust the nearest N hops" (the form Fastify's types accept). */
function trustProxyOption(setting: Config['trustProxy']): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (typeof setting !== 'number') return setting;
  return (_address, hop) => hop < setting;
}

export interface BuildAppOptions {
  /**
   * Called for every answer whose status its route does not declare in `schema.response`
   * (declared-answers.ts says which routes are exempt). The test harness turns it on and fails
   * the test file on any; production leaves it off.
   */
  onUndeclaredAnswer?: (answer: UndeclaredAnswer) => void;
  /** Shorter server timeouts (tests of the timeouts themselves); SERVER_TIMEOUTS otherwise. */
  serverTimeouts?: Partial<ServerTimeouts>;
  /** Where the built operator console is (default: dist/console of the repository). */
  consoleDir?: string;
}

export async function buildApp(container: Container, logger: Logger, options: BuildAppOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    logController: new AccessLogController(logger),
    childLoggerFactory: lazyRequestLogger,
    bodyLimit: BODY_LIMIT_BYTES,
    ...serverTimeoutOptions({ ...SERVER_TIMEOUTS, ...options.serverTimeouts }),
    genReqId: genRequestId,
    return503OnClosing: true,
    // On close, keep-alive connections with no request in progress are closed at once.
    forceCloseConnections: 'idle',
    // Per-address limits key on request.ip: believe X-Forwarded-For only from configured proxies.
    trustProxy: trustProxyOption(container.config.trustProxy),
    // Types are coerced in the query string and path only, never in JSON bodies (input.ts).
    schemaController: perPartValidators(),
    clientErrorHandler,
    frameworkErrors,
    ajv: {
      customOptions: {
        allErrors: true, // list every bad field; bodies are size-limited
        removeAdditional: false, // unknown fields are rejected, never silently dropped
        useDefaults: true,
      },
      // Emails are compared after trimming: accept surrounding spaces here, the service trims.
      onCreate: (ajv) => {
        ajv.addFormat('email', { type: 'string', validate: (s: string) => EMAIL_FORMAT.test(s.trim()) });
      },
    },
  });

  // Traces first (when the entry point started them: OTEL_EXPORTER_OTLP_ENDPOINT), so every route and hook is seen.
  const telemetry = activeTelemetry();
  if (telemetry) await app.register(telemetry.fastifyPlugin());
  registerErrorHandlers(app);
  closeConnectionsWithUnreadBodies(app);
  registerInputChecks(app);
  declarePlatformAnswers(app);
  if (options.onUndeclaredAnswer) recordUndeclaredAnswers(app, options.onUndeclaredAnswer);
  // Prometheus: every answer by route template and status (src/platform/metrics).
  const metrics = container.platform.metrics;
  app.addHook('onResponse', (request, reply, done) => {
    metrics.request(request.method, request.routeOptions.url ?? '(unmatched)', reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    void reply.header('x-request-id', request.id);
    done(null, payload);
  });

  installGracefulClose(app);
  registerSecurityHeaders(app);
  registerGlobalRateLimit(app, container.rateLimit.global);
  // Browser apps on the origins each tenant admits. After the per-address net: a preflight with
  // an origin never seen costs one query over the tenants, so preflights count like any request.
  await registerCors(app, {
    tenantAllows: (tenantId, origin) => container.tenants.tenantAllowsOrigin(tenantId, origin),
    anyTenantAllows: (origin) => container.tenants.anyTenantAllowsOrigin(origin),
  });
  installRouteRateLimits(app, container.rateLimit.limiter);

  await app.register(swagger, swaggerOptions(container.config.publicBaseUrl));
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true });

  // Outside tenancy: operations and documentation.
  app.get('/health', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/ready', { schema: { hide: true } }, async (_request, reply) => {
    try {
      await container.database.ping();
    } catch {
      return reply.status(503).send({ statusCode: 503, error: 'Service Unavailable', message: 'Database unreachable', code: 'NOT_READY' });
    }
    // Each module's own dependencies (e.g. the EVM chain), reported under `checks`.
    const checks: Record<string, unknown> = {};
    for (const module of container.modules) {
      if (!module.ready) continue;
      try {
        Object.assign(checks, await module.ready());
      } catch {
        return reply.status(503).send({ statusCode: 503, error: 'Service Unavailable', message: `${module.name} not ready`, code: 'NOT_READY' });
      }
    }
    return { status: 'ready', sandboxes: servedSandboxes(container.config), checks };
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  // The operator console's static files (console/, built by vite); it calls the API below as an admin.
  registerConsole(app, options.consoleDir);
  // Outside tenancy: each module's open routes (JWKS, mailed-link pages, signed provider
  // callbacks, sandboxes), each in its own scope so its content-type parsers stay its own.
  for (const module of container.modules) {
    const open = module.routes?.open;
    if (open) await app.register(async (scope) => open(scope));
  }

  // Tenant-scoped API: every route below resolves x-tenant-id and authenticates first.
  await app.register(async (scope) => {
    installGuards(scope, container.guardDeps);
    installIdempotency(scope, container.platform.idempotency);
    for (const module of container.modules) await module.routes?.tenant?.(scope);
  });

  return app;
}
