import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Access } from '../../platform/http/access.js';
import { errorResponses } from '../../platform/http/schemas.js';
import { AuditEventList, ListAuditEventsQuery } from './schemas.js';
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
        summary: 'The audit log of the tenant, newest first (keyset paging with beforeId)',
        querystring: ListAuditEventsQuery,
        response: { 200: AuditEventList, ...errorResponses(403) },
      },
    },
    async (request) => {
      const { limit, offset, beforeId, ...filters } = request.query;
      return audit.list(request.tenant.id, filters, { limit, offset, beforeId });
    },
  );
}
