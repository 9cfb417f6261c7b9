import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { Type } from 'typebox';
import { isUnchanged } from './before-effects.js';
import { IdempotencyErrors } from './errors.js';
import { parseIdempotencyKey, requestHash } from './key.js';
import { isFinalStatus, type IdempotencyStore, type RunningClaim } from './store.js';

export interface IdempotentRouteOptions {
  store: Pick<IdempotencyStore, 'begin'>;
  /** A body field that may carry the key instead of the header (the spec's `idempotentId`). */
  bodyField?: string;
  /** No key: 400 IDEMPOTENCY_KEY_REQUIRED (default), or, when false, the route runs unguarded. */
  required?: boolean;
  /** The operation the key belongs to; default `METHOD /route/pattern`. */
  scope?: string;
}

export const REPLAYED_HEADER = 'idempotent-replayed';

/** The header an idempotent route documents in its schema (`schema.headers`). */
export const IdempotencyKeyHeader = Type.Object({ 'idempotency-key': Type.Optional(Type.String({ minLength: 1, maxLength: 255 })) });

/** Whether a route takes an idempotency key: without one, `required` answers 400 IDEMPOTENCY_KEY_REQUIRED and `optional` runs unguarded. */
export type IdempotencyMode = 'required' | 'optional';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route is idempotent (a value move): the platform claims the key before the handler runs. */
    idempotency?: IdempotencyMode;
    /** A body field that may carry the key instead of the Idempotency-Key header (the spec's `idempotentId`). */
    idempotencyBodyField?: string;
  }
}

function keyOf(request: FastifyRequest, bodyField: string | undefined): string | undefined {
  const header = request.headers['idempotency-key'];
  const fromHeader = header === undefined ? undefined : parseIdempotencyKey(header);
  const body = request.body as Record<string, unknown> | null | undefined;
  const raw = bodyField && body && typeof body === 'object' ? body[bodyField] : undefined;
  const fromBody = raw === undefined ? undefined : parseIdempotencyKey(raw);
  if (fromHeader !== undefined && fromBody !== undefined && fromHeader !== fromBody) throw IdempotencyErrors.keyMismatch();
  return fromHeader ?? fromBody;
}

/**
 * The route options that make a tenant route idempotent: spread them into the route's options
 * (`{ config, schema, ...idempotentRoute({ store, bodyField: 'idempotentId' }) }`). The
 * preHandler (after authentication and validation) claims the key or replays the stored
 * answer; onSend stores the first answer (a final status) or gives the key back (5xx, 408,
 * 429, or an error the handler raised before changing anything: onError notes it).
 */
export function idempotentRoute(options: IdempotentRouteOptions) {
  const claims = new WeakMap<FastifyRequest, RunningClaim>();
  const unchanged = new WeakSet<FastifyRequest>();

  async function preHandler(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
    const key = keyOf(request, options.bodyField);
    if (key === undefined) {
      if (options.required ?? true) throw IdempotencyErrors.keyRequired();
      return undefined;
    }
    const ctx = request.ctx as FastifyRequest['ctx'] | null;
    if (!ctx) throw new Error('idempotentRoute needs a tenant-scoped route');
    const tenantId = ctx.tenantId;
    const scope = options.scope ?? `${request.method} ${request.routeOptions.url ?? request.url}`;
    const hash = requestHash({ params: request.params ?? null, query: request.query ?? null, body: request.body ?? null });
    // Whose key it is comes from the call context the guards built (one caller key for all routes).
    const begun = await options.store.begin(tenantId, { scope, caller: ctx.idempotencyCaller, key, requestHash: hash });
    if (begun.kind === 'run') {
      claims.set(request, begun);
      return undefined;
    }
    const { statusCode, contentType, body } = begun.answer;
    void reply.code(statusCode).header(REPLAYED_HEADER, 'true');
    if (contentType) void reply.header('content-type', contentType);
    // Answering early from an async hook: send, then return the reply.
    return reply.send(body);
  }

  async function onSend(request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
    const claim = claims.get(request);
    if (!claim) return payload;
    claims.delete(request);
    const text = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : undefined;
    try {
      if (text !== undefined && isFinalStatus(reply.statusCode) && !unchanged.has(request)) {
        const contentType = reply.getHeader('content-type');
        await claim.finish({ statusCode: reply.statusCode, contentType: contentType === undefined ? null : String(contentType), body: text });
      } else {
        await claim.release();
      }
    } catch (error) {
      // The answer still goes out; the claim stays running until its lease passes.
      request.log.error({ err: error }, 'idempotency answer could not be stored');
    }
    return payload;
  }

  async function onError(request: FastifyRequest, _reply: FastifyReply, error: unknown): Promise<void> {
    if (claims.has(request) && isUnchanged(error)) unchanged.add(request);
  }

  return { preHandler, onSend, onError };
}

const IDEMPOTENT = Symbol('bastion.idempotent-route');

/**
 * The one switch: every route declaring `config.idempotency` ('required' | 'optional', and
 * `idempotencyBodyField` where the spec names a body field) gets the hooks of idempotentRoute
 * against the one store of the platform. Installed on the tenant scope after the guards, so the
 * key is claimed after authentication, validation and the route's rate limit.
 */
export function installIdempotency(app: FastifyInstance, store: Pick<IdempotencyStore, 'begin'>): void {
  app.addHook('onRoute', (route: RouteOptions) => {
    const config = route.config as { idempotency?: IdempotencyMode; idempotencyBodyField?: string } | undefined;
    if (!config?.idempotency) return;
    const toList = <T>(hooks: T | T[] | undefined): T[] => (hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks]);
    const existing = toList(route.preHandler);
    // HEAD routes are copies of their GET route and already carry the hooks.
    if (existing.some((hook) => (hook as { [IDEMPOTENT]?: true })[IDEMPOTENT])) return;
    const hooks = idempotentRoute({ store, required: config.idempotency === 'required', ...(config.idempotencyBodyField ? { bodyField: config.idempotencyBodyField } : {}) });
    Object.assign(hooks.preHandler, { [IDEMPOTENT]: true });
    route.preHandler = [...existing, hooks.preHandler] as RouteOptions['preHandler'];
    route.onSend = [...toList(route.onSend), hooks.onSend] as RouteOptions['onSend'];
    route.onError = [...toList(route.onError), hooks.onError] as RouteOptions['onError'];
  });
}
