import cors from '@fastify/cors';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * Cross-origin calls from browser apps (docs/decisions.md, "CORS per tenant"), with
 * @fastify/cors. Each tenant names the origins of its apps (`tenant cors-origins`, by default
 * the origin of its app URL). A request carries its tenant in `x-tenant-id`, so an answer
 * admits its origin only when that tenant does; a preflight cannot carry the header's value
 * (browsers send only its name), so it admits an origin that some tenant admits and the
 * answer itself is checked again. The origin is echoed, never `*`, and no credentials header
 * is sent: the API takes bearer tokens and API keys, never cookies.
 */
export interface CorsPolicy {
  /** True when the tenant admits this origin. */
  tenantAllows(tenantId: string, origin: string): Promise<boolean>;
  /** True when some tenant admits this origin (preflights). */
  anyTenantAllows(origin: string): Promise<boolean>;
}

export const CORS_ALLOWED_HEADERS = ['content-type', 'authorization', 'x-tenant-id', 'x-api-key', 'idempotency-key', 'x-request-id'];
export const CORS_EXPOSED_HEADERS = [
  'x-request-id',
  'retry-after',
  'idempotent-replayed',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'location',
  'content-disposition',
];
export const CORS_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];
/** How long a browser may keep a preflight's answer (seconds). */
export const CORS_MAX_AGE = 600;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function isPreflight(request: FastifyRequest): boolean {
  return request.method === 'OPTIONS' && typeof request.headers['access-control-request-method'] === 'string';
}

export async function registerCors(app: FastifyInstance, policy: CorsPolicy): Promise<void> {
  async function admits(request: FastifyRequest): Promise<string | false> {
    const origin = request.headers.origin;
    // "null" (a sandboxed frame, a file) is no origin a tenant can name.
    if (typeof origin !== 'string' || origin === 'null' || origin.length > 2048) return false;
    try {
      if (isPreflight(request)) return (await policy.anyTenantAllows(origin)) ? origin : false;
      const tenantId = request.headers['x-tenant-id'];
      if (typeof tenantId !== 'string' || !UUID.test(tenantId)) return false;
      return (await policy.tenantAllows(tenantId.toLowerCase(), origin)) ? origin : false;
    } catch (error) {
      // The database is away: no CORS headers; the request itself answers 503 in its own way.
      request.log.warn({ err: error }, 'CORS: could not read the allowed origins');
      return false;
    }
  }

  const optionsFor = (origin: string | false) => ({
    origin,
    methods: CORS_METHODS,
    allowedHeaders: CORS_ALLOWED_HEADERS,
    exposedHeaders: CORS_EXPOSED_HEADERS,
    credentials: false,
    maxAge: CORS_MAX_AGE,
    // A preflight of an origin nobody admits is answered, without the headers: the browser refuses.
    strictPreflight: false,
  });
  // Most calls come from servers, with no Origin: answered at once, without a promise per request.
  const noOrigin = optionsFor(false);
  await app.register(cors, {
    hideOptionsRoute: true,
    delegator: (request, callback) => {
      if (request.headers.origin === undefined) return callback(null, noOrigin);
      void admits(request).then((origin) => callback(null, optionsFor(origin)));
    },
  });
}
