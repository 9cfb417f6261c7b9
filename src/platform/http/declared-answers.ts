import type { FastifyInstance, RouteOptions } from 'fastify';
import { errorResponses } from './schemas.js';

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Statuses the platform itself can answer on a route, before or around its handler:
 * 400 (validation, unstorable text), 408 and 431 (Node's HTTP parser), 429 (the global rate
 * limit), 500, 503 (overload, shutdown); with a body 413 and 415; with path parameters 414.
 */
export function platformStatuses(methods: string[], url: string): number[] {
  const statuses = [400, 408, 429, 431, 500, 503];
  if (methods.some((m) => BODY_METHODS.has(m))) statuses.push(413, 415);
  if (url.includes(':')) statuses.push(414);
  return statuses;
}

/**
 * Adds the platform's statuses to every documented route's responses (each route declares the
 * statuses of its own rules: 401, 403, 404, 409...). The schema is mutated in place:
 * @fastify/swagger keeps a reference to it.
 */
export function declarePlatformAnswers(app: FastifyInstance): void {
  app.addHook('onRoute', (route: RouteOptions) => {
    const schema = (route.schema ?? (route.schema = {})) as { hide?: boolean; response?: Record<string, unknown> };
    if (schema.hide) return;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const response = (schema.response ??= {});
    for (const [status, error] of Object.entries(errorResponses(...platformStatuses(methods, route.url)))) {
      if (!(status in response)) response[status] = error;
    }
  });
}

/** An answer whose status the route's `schema.response` does not declare. */
export interface UndeclaredAnswer {
  method: string;
  /** The route as registered, e.g. `/users/:id`. */
  url: string;
  statusCode: number;
  /** The error body's `code`, when the answer is a JSON error. */
  code?: string;
}

/** True when `response` declares `status`: by its number, its class (`4XX`) or `default`. */
export function declaresStatus(response: Record<string, unknown>, status: number): boolean {
  return String(status) in response || `${String(status)[0]}XX` in response || `${String(status)[0]}xx` in response || 'default' in response;
}

/** True when a route declares an answer of its own, beyond the error statuses the platform adds. */
function declaresOwnAnswers(response: Record<string, unknown>): boolean {
  return Object.keys(response).some((key) => key === 'default' || !/^\d/.test(key) || Number(key[0]) < 4);
}

function errorCodeOf(payload: unknown): string | undefined {
  if (typeof payload !== 'string' || !payload.startsWith('{')) return undefined;
  try {
    const code = (JSON.parse(payload) as { code?: unknown }).code;
    return typeof code === 'string' ? code : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Reports every answer whose status the route does not declare in `schema.response` (a test-time
 * check: the harness fails the test file on any). Exempt: unknown routes, hidden routes
 * (`schema.hide`: health, readiness, the OpenAPI document), and routes outside tenancy that
 * declare no answer of their own (pages behind mailed links, provider sandboxes). A
 * tenant-scoped route (one with an access requirement) is always checked.
 */
export function recordUndeclaredAnswers(app: FastifyInstance, record: (answer: UndeclaredAnswer) => void): void {
  app.addHook('onSend', (request, reply, payload, done) => {
    const { url, schema, config } = request.routeOptions;
    const { hide, response = {} } = (schema ?? {}) as { hide?: boolean; response?: Record<string, unknown> };
    const exempt = request.is404 || url === undefined || hide || (config.auth === undefined && !declaresOwnAnswers(response));
    if (!exempt && !declaresStatus(response, reply.statusCode)) {
      record({ method: request.method, url, statusCode: reply.statusCode, code: errorCodeOf(payload) });
    }
    done(null, payload);
  });
}
