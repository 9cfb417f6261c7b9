import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, onRequestAsyncHookHandler } from 'fastify';
import type { Redis } from 'ioredis';
import { rateLimitedError } from './limiter.js';

export interface GlobalRateLimitOptions {
  /** Requests per client IP per window. */
  max: number;
  windowMs: number;
  /** Shared counters across instances when set; in-process otherwise. */
  redis?: Redis;
  /** Key prefix, `bastion:rl:...`. */
  prefix: string;
}

/** Probes of load balancers and orchestrators are never limited. */
const EXEMPT_ROUTES = new Set(['/health', '/ready']);

/**
 * The safety net in front of everything: at most `max` requests per client IP per window,
 * counted before tenant resolution or authentication run (a root onRequest hook runs before
 * the routes' own guards), and for unknown routes too. Over the limit: 429 in the error shape
 * with Retry-After. If Redis fails the request goes through (the feature limits still apply).
 */
export async function registerGlobalRateLimit(app: FastifyInstance, options: GlobalRateLimitOptions): Promise<void> {
  await app.register(rateLimit, {
    global: false,
    max: options.max,
    timeWindow: options.windowMs,
    redis: options.redis,
    nameSpace: `${options.prefix}global:ip:`,
    cache: 10_000,
    skipOnError: true,
    allowList: (request) => EXEMPT_ROUTES.has(request.routeOptions.url ?? ''),
    errorResponseBuilder: (_request, context) => rateLimitedError(context.ttl),
  });
  app.addHook('onRequest', app.rateLimit() as unknown as onRequestAsyncHookHandler);
}
