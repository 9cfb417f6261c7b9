import type { AuditService } from '../audit/service.js';
import type { SecurityEvent, SecurityEventSink } from './sessions.js';

/** The audit row of an auth security event: the actor is the user themself unless named. */
function auditInput(event: SecurityEvent) {
  const actor = event.actor ?? (event.userId ? { type: 'user' as const, id: event.userId } : { type: 'anonymous' as const });
  return { type: event.type, actorType: actor.type, actorId: actor.id ?? null, subjectUserId: event.userId ?? null, details: event.details };
}

/** Security events of the auth flows land in the append-only audit log. */
export function auditSink(audit: AuditService): SecurityEventSink {
  return Object.assign(
    async (txDb: Parameters<SecurityEventSink>[0], tenantId: string, event: SecurityEvent) => {
      await audit.record(txDb, tenantId, auditInput(event));
    },
    { statement: (tenantId: string, event: SecurityEvent) => audit.statement(tenantId, auditInput(event)) },
  );
}
