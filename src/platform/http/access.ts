import type { FastifyRequest } from 'fastify';
import type { AuthRequirement, Role } from './principal.js';

/**
 * Who may call a route: the one list routes declare from (`config: { auth: Access.user }`).
 * The guards (guards.ts) enforce it before anything else runs.
 */
export const Access = {
  /** Inherently public: sign-up, login, verification, resets, 2FA verify, refresh, IdP start. */
  public: 'public',
  /** A user's bearer token (any role). */
  user: { bearer: 'user' },
  /** An API key of the tenant (its back end). */
  apiKey: { apiKey: true },
  /** An API key of the tenant, or a user's bearer token (any role). */
  apiKeyOrUser: { apiKey: true, bearer: 'user' },
  /** An API key of the tenant, or an admin's bearer token. */
  apiKeyOrAdmin: { apiKey: true, bearer: 'admin' },
} as const satisfies Record<string, AuthRequirement>;

/** A user calling with a bearer token. */
export interface UserCaller {
  kind: 'user';
  userId: string;
  role: Role;
  sessionId: string;
}

/** The tenant's back end calling with an API key. */
export interface ApiKeyCaller {
  kind: 'apiKey';
  keyId: string;
}

export type Caller = UserCaller | ApiKeyCaller;

/** Who is asking, as the own-record rules read it: the user (if any), and whether it may act for others. */
export interface Viewer {
  userId?: string;
  /** An API key of the tenant or an admin bearer. */
  privileged: boolean;
}

/** The guard made this impossible: a handler asked for a caller its route's access does not admit. */
function accessMismatch(request: FastifyRequest, wanted: string): Error {
  return new Error(`route ${request.method} ${request.routeOptions.url ?? request.url} asked for ${wanted}, which its access does not admit`);
}

/** The caller of a route whose access is not public. */
export function caller(request: FastifyRequest): Caller {
  const p = request.principal;
  if (p?.kind === 'user') return { kind: 'user', userId: p.userId, role: p.role, sessionId: p.sessionId };
  if (p?.kind === 'apiKey') return { kind: 'apiKey', keyId: p.keyId };
  throw accessMismatch(request, 'a caller');
}

/** The calling user of a route whose access admits only users (`Access.user`). */
export function userCaller(request: FastifyRequest): UserCaller {
  const c = caller(request);
  if (c.kind !== 'user') throw accessMismatch(request, 'a user');
  return c;
}

/** The calling key of a route whose access admits only API keys (`Access.apiKey`). */
export function apiKeyCaller(request: FastifyRequest): ApiKeyCaller {
  const c = caller(request);
  if (c.kind !== 'apiKey') throw accessMismatch(request, 'an API key');
  return c;
}

/** The caller as the own-record rules see it; on a public route: nobody, unprivileged. */
export function viewerOf(request: FastifyRequest): Viewer {
  const p = request.principal;
  return { userId: p?.kind === 'user' ? p.userId : undefined, privileged: p?.kind === 'apiKey' || (p?.kind === 'user' && p.role === 'admin') };
}
