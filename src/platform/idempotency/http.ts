import type { FastifyReply, FastifyRequest } from 'fastify';
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

/** Keys of the tenant's API keys are one caller (the tenant's back end); each user is its own. */
function callerOf(request: FastifyRequest): string {
  const p = request.principal;
  if (p?.kind === 'user') return `user:${p.userId}`;
  if (p?.kind === 'apiKey') return 'service';
  return 'public';
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
    const tenantId = request.tenant?.id;
    if (!tenantId) throw new Error('idempotentRoute needs a tenant-scoped route');
    const scope = options.scope ?? `${request.method} ${request.routeOptions.url ?? request.url}`;
    const hash = requestHash({ params: request.params ?? null, query: request.query ?? null, body: request.body ?? null });
    const begun = await options.store.begin(tenantId, { scope, caller: callerOf(request), key, requestHash: hash });
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
