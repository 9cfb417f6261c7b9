import { keepRawJsonBody } from '../../platform/http/raw-body.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { errorResponses } from '../../platform/http/schemas.js';
import { cleanStorable } from '../../platform/http/storable-text.js';
import type { IdvPort } from '../../providers/idv/port.js';
import { WebhookAck } from './schemas.js';
import type { KycWebhooks } from './webhooks.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The tenant a verified webhook belongs to. */
    webhookTenantId?: string;
  }
}

const security = [{ webhookSignature: [] }];

/**
 * Provider webhooks: outside tenancy (providers send no x-tenant-id), authenticated by each
 * provider's signature over the raw body. Every provider's adapter names its webhook routes,
 * their bodies and where the tenant travels; one handler serves them all. The raw-body parser
 * is scoped to these routes only; the signature is checked before the body is validated, so
 * an unsigned request is always a 401.
 */
export async function kycCallbackRoutes(app: FastifyInstance, deps: { webhooks: KycWebhooks; idv: IdvPort }): Promise<void> {
  const { webhooks, idv } = deps;
  // A signed message is applied even when its text cannot be stored as sent: NUL and unpaired
  // surrogates are cleaned; the raw bytes are kept with the webhook row.
  keepRawJsonBody(app, { clean: cleanStorable });

  const tags = ['KYC provider callbacks'];
  const signatureDoc = 'Signed with HMAC-SHA256 of the raw body under the tenant secret, hex, in x-hmac-signature (docs/providers.md).';
  for (const adapter of Object.values(idv)) {
    for (const route of adapter.webhooks) {
      app.post(
        route.path,
        {
          config: { tenancy: false },
          preValidation: async (request: FastifyRequest) => {
            request.webhookTenantId = await webhooks.authenticate(
              adapter,
              route.tenantOf(request.body, request.query),
              request.rawBody ?? Buffer.alloc(0),
              request.headers[adapter.signatureHeader],
            );
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
          const tenantId = request.webhookTenantId!;
          const ack = await webhooks.receive(adapter, route.read(request.body, tenantId), { tenantId, raw: request.rawBody! });
          return reply.status(201).send(ack);
        },
      );
    }
  }
}
