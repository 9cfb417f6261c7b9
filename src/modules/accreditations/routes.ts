import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Access } from '../../platform/http/access.js';
import { contextOf } from '../../platform/http/context.js';
import { errorResponses, IdParam } from '../../platform/http/schemas.js';
import { Accreditation, AccreditationList, CreateAccreditationBody, DecisionBody, ListAccreditationsQuery, PendingAccreditationsQuery } from './schemas.js';
import type { AccreditationsService } from './service.js';


export function accreditationsRoutes(app: FastifyInstance, deps: { accreditations: AccreditationsService }): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { accreditations } = deps;
  const tags = ['Accreditations'];

  r.post(
    '/accreditations',
    {
      config: { auth: Access.apiKeyOrUser },
      schema: {
        tags,
        summary: 'Submit an accreditation claim (the user for themself; an API key or admin names the user)',
        body: CreateAccreditationBody,
        response: { 201: Accreditation, ...errorResponses(403, 404) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await accreditations.submit(contextOf(request, Access.apiKeyOrUser), request.body)),
  );

  r.get(
    '/accreditations',
    {
      config: { auth: Access.apiKeyOrUser },
      schema: {
        tags,
        summary: "A user's accreditation claims, newest first (the user, an admin or an API key)",
        querystring: ListAccreditationsQuery,
        response: { 200: AccreditationList, ...errorResponses(403, 404) },
      },
    },
    async (request) => {
      const { userId, limit, offset } = request.query;
      return accreditations.listForUser(contextOf(request, Access.apiKeyOrUser), userId, { limit, offset });
    },
  );

  r.get(
    '/accreditations/pending',
    {
      config: { auth: Access.apiKeyOrAdmin },
      schema: {
        tags,
        summary: "The tenant's claims awaiting a decision, oldest first (the review queue of an admin or the back end)",
        querystring: PendingAccreditationsQuery,
        response: { 200: AccreditationList, ...errorResponses(403) },
      },
    },
    async (request) => accreditations.listPending(request.tenant.id, request.query),
  );

  r.post(
    '/accreditations/:id/decision',
    {
      config: { auth: Access.apiKeyOrAdmin },
      schema: {
        tags,
        summary: 'Decide a claim: approved or rejected, with an optional reason (once; a second decision is 409)',
        params: IdParam,
        body: DecisionBody,
        response: { 201: Accreditation, ...errorResponses(403, 404, 409) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await accreditations.decide(request.tenant.id, request.params.id, request.body, contextOf(request, Access.apiKeyOrAdmin).actor)),
  );
}
