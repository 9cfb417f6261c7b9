import type { FastifyRequest } from 'fastify';
import type { AuditEventInput } from './service.js';

/** Who acted and from where, as a route sees it: pass to audit.record with the event's type. */
export function auditContext(request: FastifyRequest): Pick<AuditEventInput, 'actorType' | 'actorId' | 'ip' | 'userAgent'> {
  const principal = request.principal;
  const actor: Pick<AuditEventInput, 'actorType' | 'actorId'> =
    principal?.kind === 'user'
      ? { actorType: 'user', actorId: principal.userId }
      : principal?.kind === 'apiKey'
        ? { actorType: 'api_key', actorId: principal.keyId }
        : { actorType: 'anonymous', actorId: null };
  const userAgent = request.headers['user-agent'];
  return { ...actor, ip: request.ip, userAgent: typeof userAgent === 'string' ? userAgent : null };
}
