import helmet from '@fastify/helmet';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Container } from './container.js';
import { auditRoutes } from './modules/audit/routes.js';
import { usersRoutes } from './modules/users/routes.js';
import { registerErrorHandlers } from './platform/http/error-handler.js';
import { installGuards } from './platform/http/guards.js';
import { registerGlobalRateLimit } from './platform/ratelimit/global.js';
import { genRequestId } from './platform/http/request-id.js';

export const BODY_LIMIT_BYTES = 1024 * 1024;

const EMAIL_FORMAT = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export async function buildApp(container: Container, logger: Logger): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    bodyLimit: BODY_LIMIT_BYTES,
    genReqId: genRequestId,
    return503OnClosing: true,
    ajv: {
      customOptions: {
        allErrors: true, // list every bad field; bodies are size-limited
        removeAdditional: false, // unknown fields are rejected, never silently dropped
        coerceTypes: 'array',
        useDefaults: true,
      },
      // Emails are compared after trimming: accept surrounding spaces here, the service trims.
      onCreate: (ajv) => {
        ajv.addFormat('email', { type: 'string', validate: (s: string) => EMAIL_FORMAT.test(s.trim()) });
      },
    },
  });

  registerErrorHandlers(app);
  app.addHook('onSend', async (request, reply) => {
    void reply.header('x-request-id', request.id);
  });

  await app.register(helmet, { global: true });
  await registerGlobalRateLimit(app, {
    max: container.rateLimit.global.max,
    windowMs: container.rateLimit.global.windowMs,
    redis: container.rateLimit.redis,
    prefix: container.rateLimit.keyPrefix,
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Bastion',
        version: '0.1.0',
        description: 'Multi-tenant identity, compliance and wallet service. Every tenant-scoped route requires x-tenant-id.',
      },
      components: {
        securitySchemes: {
          tenant: { type: 'apiKey', in: 'header', name: 'x-tenant-id', description: 'Tenant id; required on every tenant-scoped route' },
          apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: "API key of the tenant (the tenant's back end)" },
          bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Access token (15 minutes)' },
        },
      },
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true });

  // Outside tenancy: operations and documentation.
  app.get('/health', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/ready', { schema: { hide: true } }, async (_request, reply) => {
    try {
      await container.database.ping();
      return { status: 'ready' };
    } catch {
      return reply.status(503).send({ statusCode: 503, error: 'Service Unavailable', message: 'Database unreachable', code: 'NOT_READY' });
    }
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  // Tenant-scoped API: every route below resolves x-tenant-id and authenticates first.
  await app.register(async (scope) => {
    installGuards(scope, container.guardDeps);
    usersRoutes(scope, { users: container.users });
    auditRoutes(scope, { audit: container.audit });
  });

  return app;
}
