import type { FastifyRequest } from 'fastify';
import { caller } from '../../platform/http/access.js';
import type { Caller } from './access.js';

/** Only who calls: roles and permissions are read from the database by the services. */
export function callerOf(request: FastifyRequest): Caller {
  const c = caller(request);
  return c.kind === 'apiKey' ? { kind: 'apiKey', keyId: c.keyId } : { kind: 'user', userId: c.userId };
}
