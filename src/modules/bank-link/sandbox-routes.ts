import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Access } from '../../platform/http/access.js';
import { contextOf } from '../../platform/http/context.js';
import { errorResponses } from '../../platform/http/schemas.js';
import { tenantFacts } from './routes.js';
import { CreateOriginatorBody, KybBody, KybResponse, Originator, OriginatorIdParam, OriginatorList, OriginatorListQuery } from './schemas.js';
import type { OriginatorsService } from './originators.js';

/** The sandbox originators (API key; 404 unless the tenant's bank-link environment is the sandbox). */
export function bankLinkSandboxRoutes(app: FastifyInstance, deps: { originators: OriginatorsService }): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { originators } = deps;
  const tags = ['Bank-account linking: sandbox originators'];

  r.post(
    '/bank-link-sandbox/originators',
    {
      config: { auth: Access.apiKey },
      schema: {
        tags,
        summary: "Create an originator (body: the tenant's sandbox credentials and the company name)",
        body: CreateOriginatorBody,
        response: { 201: Originator, ...errorResponses(403, 404, 502) },
      },
    },
    async (request, reply) => reply.status(201).send(await originators.create(request.tenant.id, request.body, contextOf(request, Access.apiKey).actor)),
  );

  r.get(
    '/bank-link-sandbox/originators',
    {
      config: { auth: Access.apiKey },
      schema: { tags, summary: 'The originators, in creation order (count 1-25 and offset required)', querystring: OriginatorListQuery, response: { 200: OriginatorList, ...errorResponses(403, 404, 502) } },
    },
    async (request) => originators.list(request.tenant.id, request.query),
  );

  r.post(
    '/bank-link-sandbox/originators/:id/kyb',
    {
      config: { auth: Access.apiKey },
      schema: {
        tags,
        summary: 'Start the KYB questionnaire of an originator: answers its onboarding URL',
        params: OriginatorIdParam,
        body: KybBody,
        response: { 201: KybResponse, ...errorResponses(403, 404, 502) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await originators.startKyb(request.tenant.id, request.params.id, request.body, contextOf(request, Access.apiKey).actor, tenantFacts(request).appUrl)),
  );

  r.get(
    '/bank-link-sandbox/originators/:id',
    { config: { auth: Access.apiKey }, schema: { tags, summary: 'An originator and its diligence status', params: OriginatorIdParam, response: { 200: Originator, ...errorResponses(403, 404, 502) } } },
    async (request) => originators.get(request.tenant.id, request.params.id),
  );
}
