import { keepRawJsonBody } from '../../platform/http/raw-body.js';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { errorResponses } from '../../platform/http/schemas.js';
import { VERIFICATION_HEADER } from '../../providers/bank-link/port.js';
import { WebhookAck, WebhookTenantParam } from './schemas.js';
import type { BankLinkWebhooks, WebhookBody } from './webhooks.js';

const WebhookPayload = Type.Object(
  { webhook_type: Type.String({ minLength: 1, maxLength: 100 }), webhook_code: Type.String({ minLength: 1, maxLength: 100 }) },
  { additionalProperties: true },
);

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
      preValidation: async (request) => {
        const tenantId = String((request.params as { tenantId?: unknown }).tenantId ?? '').toLowerCase();
        await deps.webhooks.verify(tenantId, request.rawBody ?? Buffer.alloc(0), request.headers[VERIFICATION_HEADER]);
      },
    },
    async (request) => {
      await deps.webhooks.handle(request.params.tenantId.toLowerCase(), request.body as WebhookBody);
      return { received: true as const };
    },
  );
}
