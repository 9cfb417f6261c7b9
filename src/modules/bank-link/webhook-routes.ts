import { keepRawJsonBody } from '../../platform/http/raw-body.js';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { errorResponses } from '../../platform/http/schemas.js';
import type { InboundWebhook } from '../../platform/providers/define.js';
import { WebhookAck, WebhookTenantParam } from './schemas.js';
import type { BankLinkWebhooks, WebhookBody } from './webhooks.js';

const WebhookPayload = Type.Object(
  { webhook_type: Type.String({ minLength: 1, maxLength: 100 }), webhook_code: Type.String({ minLength: 1, maxLength: 100 }) },
  { additionalProperties: true },
);

/** The delivery as received: the tenant of the path, the exact bytes, the headers. */
const inbound = (request: FastifyRequest): InboundWebhook => ({
  tenantId: String((request.params as { tenantId?: unknown }).tenantId ?? '').toLowerCase(),
  rawBody: (request.rawBody ?? Buffer.alloc(0)).toString('utf8'),
  headers: request.headers,
});

/**
 * The provider's webhooks, outside tenancy: the tenant is in the path, the signature (checked
 * before the body is validated) proves the sender. The exact bytes are kept for the body hash.
 */
export async function bankLinkWebhookRoutes(app: FastifyInstance, deps: { webhooks: BankLinkWebhooks }): Promise<void> {
  keepRawJsonBody(app, { bodyLimit: 64 * 1024 });
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.post(
    '/bank-link/webhooks/:tenantId',
    {
      config: { tenancy: false },
      schema: {
        tags: ['Bank-account linking'],
        summary: 'Provider webhooks: an ES256 JWT in the Plaid-Verification header over the SHA-256 of the body (docs/providers.md)',
        // Signed by the provider (not the shared-secret HMAC): see the summary and docs/providers.md.
        security: [{ webhookSignature: [] }],
        params: WebhookTenantParam,
        body: WebhookPayload,
        response: { 200: WebhookAck, ...errorResponses(502) },
      },
      preValidation: async (request) => deps.webhooks.verify(inbound(request)),
    },
    async (request) => {
      await deps.webhooks.handle(inbound(request), request.body as WebhookBody);
      return { received: true as const };
    },
  );
}
