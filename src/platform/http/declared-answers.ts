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
