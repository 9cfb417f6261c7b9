import type { FastifyRequest } from 'fastify';
import { Access } from '../../platform/http/access.js';
import { contextOf } from '../../platform/http/context.js';
import type { Caller } from './access.js';

/**
 * The call context of an entity route (every one admits an API key or a user). Kept only for
 * the business-profile routes (bp-routes.ts) until they move; the entity routes call
 * `contextOf(request, Access.apiKeyOrUser)` themselves.
 */
export function callerOf(request: FastifyRequest): Caller {
  return contextOf(request, Access.apiKeyOrUser);
}
