import type { FastifyRequest } from 'fastify';
import { auditActor } from '../../platform/audit/actor.js';
import type { AuditEventInput } from './service.js';

/**
 * Who acted and from where, as a route sees it: pass to audit.record with the event's type. The
 * actor is the call context's (`request.ctx`, src/platform/http/context.ts) in the audit log's
 * spelling (`auditActor`); a route without a caller (public) records `anonymous`.
 */
export function auditContext(request: FastifyRequest): Pick<AuditEventInput, 'actorType' | 'actorId' | 'ip' | 'userAgent'> {
  const ctx = request.ctx;
  const actor: Pick<AuditEventInput, 'actorType' | 'actorId'> = ctx?.caller ? auditActor(ctx.actor) : { actorType: 'anonymous', actorId: null };
  const userAgent = request.headers['user-agent'];
  return { ...actor, ip: request.ip, userAgent: typeof userAgent === 'string' ? userAgent : null };
}
