import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import { rateLimitedError, type RateLimiter } from './limiter.js';

/**
 * A route's own request limit, declared beside the route (`config.rateLimit`) and counted by
 * the platform before its handler runs (after validation: a malformed request costs nothing).
 * Counted per client address within the tenant, or per client address alone for routes
 * outside tenancy. Key: `<name>:<tenant>:<ip>` or `<name>:<ip>`.
 */
export interface RouteRateLimit {
  /** Names the rule in the key; routes that share a name share a budget. */
  name: string;
  /** Requests per window; a function when the module's options set it. */
  max: number | (() => number);
  windowMs: number;
  per?: 'tenant-ip' | 'ip';
  /** The 429's message, when the rule deserves its own. */
  message?: string;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    rateLimit?: RouteRateLimit;
  }
}

const LIMITED = Symbol('bastion.route-rate-limit');

/**
 * The one place request limits are applied: every route declaring `config.rateLimit` gets a
 * preHandler that counts the hit and answers 429 RATE_LIMITED with Retry-After when it is
 * over. The global safety net (global.ts) counts before everything; limits that depend on a
 * request's outcome (failed logins per account, wrong codes per user) are rules of their
 * services, counted with the same limiter.
 */
export function installRouteRateLimits(app: FastifyInstance, limiter: RateLimiter): void {
  app.addHook('onRoute', (route: RouteOptions) => {
    const rule = (route.config as { rateLimit?: RouteRateLimit } | undefined)?.rateLimit;
    if (!rule) return;
    const existing = route.preHandler === undefined ? [] : Array.isArray(route.preHandler) ? route.preHandler : [route.preHandler];
    // HEAD routes are copies of their GET route and already carry the hook.
    if (existing.some((hook) => (hook as { [LIMITED]?: true })[LIMITED])) return;
    const hook = async (request: FastifyRequest): Promise<void> => {
      const tenant = rule.per === 'ip' ? '' : `${request.tenant.id}:`;
      const max = typeof rule.max === 'function' ? rule.max() : rule.max;
      const result = await limiter.hit(`${rule.name}:${tenant}${request.ip}`, max, rule.windowMs);
      if (!result.allowed) throw rateLimitedError(result.retryAfterMs, rule.message);
    };
    Object.assign(hook, { [LIMITED]: true });
    route.preHandler = [hook, ...existing];
  });
}
