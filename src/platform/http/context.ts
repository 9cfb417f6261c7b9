import type { FastifyRequest } from 'fastify';
import { actorOf, type Actor } from '../audit/actor.js';
import type { Access, ApiKeyCaller, Caller, UserCaller } from './access.js';
import type { AuthRequirement, Principal } from './principal.js';

/**
 * The one call context: who calls, for which tenant, and what follows from it. The guards
 * build it once per request (`request.ctx`), after the credential is checked; handlers read
 * it with `contextOf(request, access)` and hand it to every service that needs the caller
 * (`service.op(ctx, input)`).
 */
export interface CallContext<C extends Caller | null = Caller> {
  tenantId: string;
  /** Who calls, on `kind`: a user's bearer token or the tenant's API key (null on public routes). */
  caller: C;
  /** The calling user's id: set only when a user calls. */
  userId?: string;
  /** An API key of the tenant or an admin's bearer token: may act for any user of the tenant. */
  privileged: boolean;
  /** Who made the change, as audit rows and events record it. */
  actor: Actor;
  /**
   * Whose idempotency keys these are: `user:<id>` for a user, `service` for the tenant's API
   * keys (one caller: its back end), `public` without a credential.
   */
  idempotencyCaller: string;
}

/** The part of the context the own-record rule reads (see ownership.ts). */
export type Viewer = Pick<CallContext<Caller | null>, 'userId' | 'privileged'>;

/** Builds the context from the checked credential (the guards' one call). */
export function buildContext(tenantId: string, principal: Principal | null): CallContext<Caller | null> {
  const caller: Caller | null =
    principal?.kind === 'user'
      ? { kind: 'user', userId: principal.userId, role: principal.role, sessionId: principal.sessionId }
      : principal?.kind === 'apiKey'
        ? { kind: 'apiKey', keyId: principal.keyId }
        : null;
  return {
    tenantId,
    caller,
    ...(caller?.kind === 'user' ? { userId: caller.userId } : {}),
    privileged: caller?.kind === 'apiKey' || (caller?.kind === 'user' && caller.role === 'admin'),
    actor: actorOf(principal),
    idempotencyCaller: caller?.kind === 'user' ? `user:${caller.userId}` : caller?.kind === 'apiKey' ? 'service' : 'public',
  };
}

/** The caller a route's access admits. */
export type CallerOf<A extends AuthRequirement> = A extends 'public'
  ? null
  : A extends { apiKey: true; bearer: 'user' | 'admin' }
    ? Caller
    : A extends { apiKey: true }
      ? ApiKeyCaller
      : A extends { bearer: 'user' | 'admin' }
        ? UserCaller
        : Caller;

/** The context of a user's call: its userId is always there. */
export type UserContext = CallContext<UserCaller> & { userId: string };

export type ContextOf<A extends AuthRequirement> = CallerOf<A> extends UserCaller ? UserContext : CallContext<CallerOf<A>>;

/** The guard made this impossible: a handler asked for a caller its route's access does not admit. */
function accessMismatch(request: FastifyRequest, wanted: string): Error {
  return new Error(`route ${request.method} ${request.routeOptions.url ?? request.url} asked for ${wanted}, which its access does not admit`);
}

/**
 * The request's context, narrowed by the route's access (pass the same `Access.*` the route
 * declares): `Access.user` gives a user's context (`ctx.userId`, `ctx.caller.sessionId`),
 * `Access.apiKey` a key's, the mixed ones the union. Throws when the guards admitted another
 * caller (a route declared with one access and read with another: a bug, not a client error).
 */
export function contextOf<A extends (typeof Access)[keyof typeof Access]>(request: FastifyRequest, access: A): ContextOf<A> {
  const ctx = request.ctx;
  if (!ctx) throw accessMismatch(request, 'a call context (a tenant-scoped route)');
  if (access !== 'public') {
    const wanted = access as { apiKey?: true; bearer?: string };
    const kind = ctx.caller?.kind;
    if (kind === undefined) throw accessMismatch(request, 'a caller');
    if (kind === 'user' && !wanted.bearer) throw accessMismatch(request, 'a user');
    if (kind === 'apiKey' && !wanted.apiKey) throw accessMismatch(request, 'an API key');
  }
  return ctx as unknown as ContextOf<A>;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The call context (tenant-scoped routes; see context.ts). Read it with contextOf(request, access). */
    ctx: CallContext<Caller | null>;
  }
}
