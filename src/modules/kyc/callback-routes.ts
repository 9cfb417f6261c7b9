import type { FastifyInstance, FastifyRequest } from 'fastify';
import { keepRawJsonBody } from '../../platform/http/raw-body.js';
import { errorResponses } from '../../platform/http/schemas.js';
import { cleanStorable } from '../../platform/http/storable-text.js';
import type { ProviderDefinition, ProviderKind } from '../../platform/providers/define.js';
import { WebhookAck } from './schemas.js';
import type { IdvPort } from '../../providers/idv/port.js';
import type { KycWebhooks } from './webhooks.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The tenant a verified webhook belongs to, and the provider's port that verified it. */
    verifiedWebhook?: { tenantId: string; port: IdvPort };
  }
}

const security = [{ webhookSignature: [] }];

/** A delivery as received: its exact bytes and headers (the query is the route's). */
const inbound = (request: FastifyRequest) => ({
  rawBody: (request.rawBody ?? Buffer.alloc(0)).toString('utf8'),
  headers: request.headers,
  query: request.query as Record<string, unknown> | undefined,
});

/**
 * Provider webhooks: outside tenancy (providers send no x-tenant-id), authenticated by each
 * provider's own signature check over the raw body (its definition's `webhooks.verify`). Each
 * identity-verification provider's definition names its webhook routes, their bodies and
 * where the tenant travels; one handler serves them all. The raw-body parser is scoped to
 * these routes only; the signature is checked before the body is validated, so an unsigned
 * request is always a 401.
 */
export async function kycCallbackRoutes(
  app: FastifyInstance,
  deps: { webhooks: KycWebhooks; definitions: () => ProviderDefinition<ProviderKind>[] },
): Promise<void> {
  const { webhooks } = deps;
  // A signed message is applied even when its text cannot be stored as sent: NUL and unpaired
  // surrogates are cleaned; the raw bytes are kept with the delivery (inbound_webhooks).
  keepRawJsonBody(app, { clean: cleanStorable });

  const tags = ['KYC provider callbacks'];
  const signatureDoc = "Signed by the provider over the raw body under the tenant's secret (docs/providers.md).";
  for (const definition of deps.definitions()) {
    if (definition.kind !== 'idv') continue;
    const provider = definition.name;
    for (const route of definition.webhooks?.routes ?? []) {
      app.post(
        route.path,
        {
          config: { tenancy: false },
          preValidation: async (request: FastifyRequest) => {
            request.verifiedWebhook = await webhooks.authenticate(provider, route.tenantOf(request.body, request.query), inbound(request));
          },
          schema: {
            tags,
            security,
            summary: route.summary,
            description: route.query ? `${signatureDoc} An unknown tenantId is a 401.` : signatureDoc,
            ...(route.query ? { querystring: route.query } : {}),
            body: route.body,
            response: { 201: WebhookAck, ...errorResponses() },
          },
        },
        async (request, reply) => {
          const { tenantId, port } = request.verifiedWebhook!;
          const ack = await webhooks.receive(provider, route.name, request.body, { tenantId, ...inbound(request) }, port);
          return reply.status(201).send(ack);
        },
      );
    }
  }
}
