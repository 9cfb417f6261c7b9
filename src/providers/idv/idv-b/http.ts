import { Type } from 'typebox';
import { providerAnswer } from '../../../platform/http/provider-answer.js';
import type { WebhookRoute } from '../../../platform/providers/define.js';
import { isUuid, malformedAnswer, SessionId, SessionUrl, signedPoster, type IdvEndpoint, type IdvHttpOptions } from '../http-client.js';
import { IDV_WEBHOOK_STATUSES, type IdvPort, type IdvWebhook } from '../port.js';
import { Document, literals, Nullable, Person } from '../schemas.js';

export const IdvBResultWebhook = Type.Object({
  eventId: Type.String({ minLength: 1, maxLength: 200 }),
  sessionId: Type.String({ minLength: 1, maxLength: 200 }),
  reference: Type.String({ minLength: 1, maxLength: 200 }),
  status: literals(IDV_WEBHOOK_STATUSES),
  reason: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
  person: Type.Optional(Person),
  document: Type.Optional(Document),
  wallet: Type.Optional(
    Type.Object({
      chain: literals(['evm', 'xrpl'] as const),
      address: Type.String({ maxLength: 100 }),
      signature: Type.String({ maxLength: 2000 }),
      publicKey: Type.Optional(Type.String({ maxLength: 200 })),
    }),
  ),
});
/** What Bastion reads of POST /v1/sessions' answer. */
const SessionAnswer = providerAnswer('idv-b session', Type.Object({ sessionId: SessionId, url: SessionUrl }));

export const TenantIdQuery = Type.Object({ tenantId: Type.String({ minLength: 1, maxLength: 100 }) });

/** idv-b's one webhook route: the result, the tenant in the query of the URL Bastion gave. */
export const IDV_B_WEBHOOK_ROUTES: readonly WebhookRoute[] = [
  {
    name: 'result',
    path: '/kyc/callback/idv-b',
    summary: 'idv-b verification result',
    body: IdvBResultWebhook,
    query: TenantIdQuery,
    tenantOf: (_body, query) => {
      const tenantId = (query as { tenantId?: unknown } | undefined)?.tenantId;
      return typeof tenantId === 'string' ? tenantId.toLowerCase() : undefined;
    },
  },
];

/**
 * idv-b (wallet style, docs/providers.md): POST /v1/sessions with `{reference, flow,
 * webhookUrl, wallet}`; one signed result webhook, whose tenant travels in the query of the
 * webhook URL Bastion gave.
 */
export function createIdvBAdapter(endpoint: IdvEndpoint, tenantId: string, options: IdvHttpOptions = {}): IdvPort {
  const post = signedPoster(options);
  return {
    provider: 'idv-b',

    async createSession(request) {
      const answer = await post(endpoint, '/v1/sessions', {
        reference: request.kycId,
        flow: request.flow === 'web3' ? 'web3' : 'regular',
        webhookUrl: `${request.callbackBaseUrl}/kyc/callback/idv-b?tenantId=${tenantId}`,
        ...(request.wallet ? { wallet: request.wallet } : {}),
      });
      const session = SessionAnswer.parse(answer, malformedAnswer('idv-b'));
      return { sessionId: session.sessionId, url: session.url };
    },

    readWebhook(route, body): IdvWebhook | { malformed: string } {
      if (route !== 'result') return { malformed: `route ${route}` };
      const b = body as Omit<IdvWebhook, 'kind' | 'kycId' | 'reason'> & { reference: string; reason?: string | null };
      if (!isUuid(b.reference)) return { malformed: 'reference' };
      return {
        kind: 'result',
        kycId: b.reference.toLowerCase(),
        sessionId: b.sessionId,
        status: b.status,
        reason: b.reason ?? null,
        person: b.person,
        document: b.document,
        wallet: b.wallet,
      };
    },
  };
}
