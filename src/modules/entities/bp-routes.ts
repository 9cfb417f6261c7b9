import { Type } from 'typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Access } from '../../platform/http/access.js';
import { errorResponses } from '../../platform/http/schemas.js';
import { BusinessProfile, BusinessProfileList, PendingBusinessProfilesQuery, SubmitBusinessProfileBody, WebhookAck, WebhookParams } from './bp-schemas.js';
import type { BusinessProfilesService } from './bp-service.js';
import { callerOf } from './caller.js';
import { EntityParams } from './schemas.js';

const tags = ['Entities'];

export function businessProfileRoutes(app: FastifyInstance, deps: { businessProfiles: BusinessProfilesService }): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { businessProfiles } = deps;

  r.post(
    '/entities/:id/business-profile-a',
    {
      config: { auth: Access.apiKeyOrUser },
      schema: {
        tags,
        summary: 'Submit the entity to business-profile-a (needs manage_entity; one live submission at a time: 409)',
        params: EntityParams,
        body: SubmitBusinessProfileBody,
        response: { 201: BusinessProfile, ...errorResponses(403, 404, 409, 502) },
      },
    },
    async (request, reply) => reply.status(201).send(await businessProfiles.submit(request.tenant.id, request.params.id, request.body, callerOf(request))),
  );

  r.get(
    '/business-profiles/pending',
    {
      config: { auth: Access.apiKeyOrAdmin },
      schema: {
        tags,
        summary: "The tenant's business profiles awaiting the provider's decision (pending, in_review), oldest first (an admin or the back end)",
        querystring: PendingBusinessProfilesQuery,
        response: { 200: BusinessProfileList, ...errorResponses(403) },
      },
    },
    async (request) => businessProfiles.listAwaiting(request.tenant.id, request.query),
  );

  r.get(
    '/entities/:id/business-profile-a',
    {
      config: { auth: Access.apiKeyOrUser },
      schema: { tags, summary: 'The business profile: status and review tasks (needs view)', params: EntityParams, response: { 200: BusinessProfile, ...errorResponses(403, 404) } },
    },
    async (request) => businessProfiles.get(request.tenant.id, request.params.id, callerOf(request)),
  );
}

const rawBodies = new WeakMap<FastifyRequest, Buffer>();

/**
 * The provider's webhooks, outside tenancy: the tenant is in the path, and the HMAC-SHA256 of
 * the raw body under the tenant's secret is checked before anything else (forged: 401).
 */
export async function businessProfileWebhookRoutes(app: FastifyInstance, deps: { businessProfiles: BusinessProfilesService }): Promise<void> {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 256 * 1024 }, (request: FastifyRequest, body: Buffer | string, done) => {
    rawBodies.set(request, Buffer.isBuffer(body) ? body : Buffer.from(body));
    done(null, undefined);
  });
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.post(
    '/callbacks/business-profile-a/:tenantId',
    {
      config: { tenancy: false },
      schema: {
        tags: ['Entities provider callbacks'],
        security: [{ webhookSignature: [] }],
        summary: 'business-profile-a webhook (business.created, business.updated)',
        description: "Signed with HMAC-SHA256 of the raw body under the tenant's webhook secret, hex, in x-middesk-signature-256 (docs/providers.md). Replays change nothing.",
        params: WebhookParams,
        // Read from the raw bytes once their signature holds (the parser keeps them aside).
        body: Type.Object({}, { additionalProperties: true, description: 'The provider event: {type, data: {object}} (docs/providers.md)' }),
        response: { 200: WebhookAck, ...errorResponses() },
      },
    },
    async (request) =>
      deps.businessProfiles.webhook({ tenantId: request.params.tenantId, rawBody: (rawBodies.get(request) ?? Buffer.alloc(0)).toString('utf8'), headers: request.headers }),
  );
}
