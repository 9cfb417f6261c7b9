import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Access } from '../../platform/http/access.js';
import { CommonErrors } from '../../platform/http/errors.js';
import { acceptsNdjson, NDJSON, ndjsonStream } from '../../platform/http/ndjson.js';
import { errorResponses } from '../../platform/http/schemas.js';
import { AuditEvent, AuditEventList, ListAuditEventsQuery } from './schemas.js';
import type { AuditService } from './service.js';

export function auditRoutes(app: FastifyInstance, deps: { audit: AuditService }): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { audit } = deps;

  r.get(
    '/audit-events',
    {
      config: { auth: Access.apiKeyOrAdmin },
      schema: {
        tags: ['Audit'],
        summary: 'The audit log of the tenant, newest first (keyset paging with beforeId); a time range; or every match streamed as NDJSON (export)',
        querystring: ListAuditEventsQuery,
        response: {
          200: {
            description: 'A page `{total, data}`; with `format=ndjson` or `Accept: application/x-ndjson`, every matching event, one AuditEvent a line, newest first',
            content: { 'application/json': { schema: AuditEventList }, [NDJSON]: { schema: AuditEvent } },
          },
          ...errorResponses(403),
        },
      },
    },
    async (request, reply) => {
      const { limit, offset, beforeId, from, to, format, ...rest } = request.query;
      const filters = { ...rest, from: from === undefined ? undefined : new Date(from), to: to === undefined ? undefined : new Date(to) };
      if (format === 'ndjson' || (format === undefined && acceptsNdjson(request.headers.accept))) {
        if (offset > 0) throw CommonErrors.validation('query.offset does not apply to ndjson: it streams every match (resume with beforeId)');
        const stream = ndjsonStream(audit.export(request.tenant.id, filters, beforeId));
        return reply.type(NDJSON).header('cache-control', 'no-store').send(stream as never);
      }
      return reply.type('application/json; charset=utf-8').send(await audit.list(request.tenant.id, filters, { limit, offset, beforeId }));
    },
  );
}
