import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { errorResponses } from '../../platform/http/schemas.js';
import { VERIFICATION_HEADER } from '../../providers/bank-link/port.js';
import { WebhookAck, WebhookTenantParam } from './schemas.js';
import type { BankLinkWebhooks, WebhookBody } from './webhooks.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The exact bytes of a provider webhook (its signature covers their hash). */
    rawBody?: Buffer;
  }
}

const WebhookPayload = Type.Object(
  { webhook_type: Type.String({ minLength: 1, maxLength: 100 }), webhook_code: Type.String({ minLength: 1, maxLength: 100 }) },
  { additionalProperties: true },
);

/**
 * The provider's webhooks, outside tenancy: the tenant is in the path, the signature (checked
 * before the body is validated) proves the sender. The exact bytes are kept for the body hash.
 */
export async function bankLinkWebhookRoutes(app: FastifyInstance, deps: { webhooks: BankLinkWebhooks }): Promise<void> {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 64 * 1024 }, (request: FastifyRequest, body: Buffer | string, done) => {
    const raw = Buffer.isBuffer(body) ? body : Buffer.from(body);
    request.rawBody = raw;
    try {
      done(null, JSON.parse(raw.toString('utf8')));
    } catch {
      done(null, undefined);
    }
  });
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
