import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { errorResponses } from '../../platform/http/schemas.js';
import { cleanStorable } from '../../platform/http/storable-text.js';
import { SIGNATURE_HEADER } from '../../providers/idv/port.js';
import { IdvADecisionWebhook, IdvAEventWebhook, IdvBResultWebhook, TenantIdQuery, WebhookAck } from './schemas.js';
import { parseVendorData, type KycWebhooks } from './webhooks.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The exact bytes of a provider webhook, for its HMAC. */
    rawBody?: Buffer;
    /** The tenant a verified webhook belongs to. */
    webhookTenantId?: string;
  }
}

const security = [{ webhookSignature: [] }];

/**
 * Provider webhooks: outside tenancy (providers send no x-tenant-id), authenticated by the
 * HMAC-SHA256 of the raw body. The raw-body parser is scoped to these routes only; the
 * signature is checked before the body is validated, so an unsigned request is always a 401.
 */
export async function kycCallbackRoutes(app: FastifyInstance, deps: { webhooks: KycWebhooks }): Promise<void> {
  const { webhooks } = deps;
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (request: FastifyRequest, body: Buffer | string, done) => {
    const raw = Buffer.isBuffer(body) ? body : Buffer.from(body);
    request.rawBody = raw;
    try {
      // A signed message is applied even when its text cannot be stored as sent: NUL and
      // unpaired surrogates are cleaned here; the raw bytes are kept with the webhook row.
      done(null, cleanStorable(JSON.parse(raw.toString('utf8'))));
    } catch {
      // Left for validation to reject after the signature check.
      done(null, undefined);
    }
  });

  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['KYC provider callbacks'];
  const signed = (tenantOf: (request: FastifyRequest) => string | undefined, provider: 'idv-a' | 'idv-b') =>
    async (request: FastifyRequest) => {
      request.webhookTenantId = await webhooks.authenticate(
        provider,
        tenantOf(request),
        request.rawBody ?? Buffer.alloc(0),
        request.headers[SIGNATURE_HEADER],
      );
    };
  const vendorTenant = (request: FastifyRequest) => {
    const body = request.body as { vendorData?: unknown; verification?: { vendorData?: unknown } } | undefined;
    return parseVendorData(body?.vendorData ?? body?.verification?.vendorData)?.tenantId;
  };
  const queryTenant = (request: FastifyRequest) => {
    const tenantId = (request.query as { tenantId?: unknown }).tenantId;
    return typeof tenantId === 'string' ? tenantId.toLowerCase() : undefined;
  };
  const input = <T>(request: FastifyRequest, body: T) => ({ tenantId: request.webhookTenantId!, body, raw: request.rawBody! });
  const signatureDoc = 'Signed with HMAC-SHA256 of the raw body under the tenant secret, hex, in x-hmac-signature (docs/providers.md).';

  r.post(
    '/kyc/callback/idv-a/event',
    {
      config: { tenancy: false },
      preValidation: signed(vendorTenant, 'idv-a'),
      schema: {
        tags,
        security,
        summary: 'idv-a session event (started, submitted)',
        description: signatureDoc,
        body: IdvAEventWebhook,
        response: { 201: WebhookAck, ...errorResponses() },
      },
    },
    async (request, reply) => reply.status(201).send(await webhooks.idvAEvent(input(request, request.body))),
  );

  r.post(
    '/kyc/callback/idv-a/decision',
    {
      config: { tenancy: false },
      preValidation: signed(vendorTenant, 'idv-a'),
      schema: {
        tags,
        security,
        summary: 'idv-a verification decision',
        description: signatureDoc,
        body: IdvADecisionWebhook,
        response: { 201: WebhookAck, ...errorResponses() },
      },
    },
    async (request, reply) => reply.status(201).send(await webhooks.idvADecision(input(request, request.body))),
  );

  r.post(
    '/kyc/callback/idv-b',
    {
      config: { tenancy: false },
      preValidation: signed(queryTenant, 'idv-b'),
      schema: {
        tags,
        security,
        summary: 'idv-b verification result',
        description: `${signatureDoc} An unknown tenantId is a 401.`,
        querystring: TenantIdQuery,
        body: IdvBResultWebhook,
        response: { 201: WebhookAck, ...errorResponses() },
      },
    },
    async (request, reply) => reply.status(201).send(await webhooks.idvBResult(input(request, request.body))),
  );
}
