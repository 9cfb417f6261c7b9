import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from 'pino';

/**
 * One access line per request ("request completed": reqId, req, res, responseTime) instead of
 * Fastify's two (incoming + completed). The line is written by a child of the process logger
 * without the wildcard redaction paths: its fields are fixed and secret-free by construction
 * (the req serializer keeps method, redacted URL, tenant and address; res is the status), and
 * the wildcard redaction cost ~60 µs a line, most of a small request's logging cost. Every
 * other log call, errored requests included, keeps the full redaction.
 */
export class AccessLogController extends LogController {
  private readonly access: Logger;

  constructor(logger: Logger) {
    super();
    this.access = logger.child({}, { redact: [] });
  }

  override incomingRequest(): void {
    // Written once the request completes, with its outcome.
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) {
      super.requestCompleted(error, request, reply);
      return;
    }
    if (!this.access.isLevelEnabled('info')) return;
    // The route template (not the URL: ids stay out of aggregations), who called, and the error code.
    const principal = request.principal;
    this.access.info(
      {
        reqId: request.id,
        req: request,
        route: request.routeOptions.url ?? null,
        principal: principal ? (principal.kind === 'user' ? { kind: 'user', id: principal.userId } : { kind: 'apiKey', id: principal.keyId }) : null,
        res: { statusCode: reply.statusCode },
        ...(request.errorCode ? { code: request.errorCode } : {}),
        responseTime: reply.elapsedTime,
      },
      'request completed',
    );
  }
}
