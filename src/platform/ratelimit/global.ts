import type { FastifyInstance } from 'fastify';
import { rateLimitedError, type RateLimiter } from './limiter.js';

export interface GlobalRateLimitOptions {
  /** Requests per client IP per window. */
  max: number;
  windowMs: number;
  /** The process's limiter: Redis when REDIS_URL is set (counts shared by every instance), memory otherwise. */
  limiter: RateLimiter;
}

/** Probes of load balancers and orchestrators are never limited. */
const EXEMPT_ROUTES = new Set(['/health', '/ready']);

/**
 * The safety net in front of everything: at most `max` requests per client IP per window,
 * counted in a root onRequest hook, so before tenant resolution or authentication run, and
 * for unknown routes too. Over the limit: 429 in the error shape with Retry-After. Every
 * response says the state (x-ratelimit-limit, -remaining, -reset in seconds). If the limiter
 * fails (Redis down) the request goes through; the feature limits still apply.
 */
export function registerGlobalRateLimit(app: FastifyInstance, options: GlobalRateLimitOptions): void {
  const { limiter, max, windowMs } = options;
  const limit = String(max);
  app.addHook('onRequest', async (request, reply) => {
    if (EXEMPT_ROUTES.has(request.url.split('?', 1)[0]!)) return;
    let result;
    try {
      result = await limiter.hit(`global:ip:${request.ip}`, max, windowMs);
    } catch {
      return;
    }
    void reply.header('x-ratelimit-limit', limit).header('x-ratelimit-remaining', String(result.remaining));
    if (!result.allowed) throw rateLimitedError(result.retryAfterMs);
  });
}
