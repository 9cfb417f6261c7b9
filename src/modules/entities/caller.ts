import type { FastifyRequest } from 'fastify';
import type { Caller } from './access.js';

/** Only who calls: roles and permissions are read from the database by the services. */
export function callerOf(request: FastifyRequest): Caller {
  const p = request.principal;
  if (p?.kind === 'apiKey') return { kind: 'apiKey', keyId: p.keyId };
  if (p?.kind === 'user') return { kind: 'user', userId: p.userId };
  throw new Error('entity routes are never public');
}
