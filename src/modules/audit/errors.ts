/**
 * A malformed audit event is a bug in the calling service, not a client error: it surfaces as
 * a logged 500 (the error handler's generic answer), never as a silently dropped record.
 */
export class AuditEventError extends Error {
  constructor(detail: string) {
    super(`Invalid audit event: ${detail}`);
    this.name = 'AuditEventError';
  }
}

export const AuditErrors = {
  invalidEvent: (detail: string) => new AuditEventError(detail),
};
