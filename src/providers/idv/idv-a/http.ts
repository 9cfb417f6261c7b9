import { Type } from 'typebox';
import { providerAnswer } from '../../../platform/http/provider-answer.js';
import type { WebhookRoute } from '../../../platform/providers/define.js';
import { isUuid, malformedAnswer, SessionId, SessionUrl, signedPoster, type IdvEndpoint, type IdvHttpOptions } from '../http-client.js';
import type { IdvPort, IdvWebhook } from '../port.js';
import { Document, literals, Nullable, Person } from '../schemas.js';

/** idv-a: decision statuses and event actions, keyed on the string. */
export const IDV_A_DECISIONS = ['approved', 'declined', 'resubmission_requested', 'review', 'expired', 'abandoned'] as const;
export const IDV_A_ACTIONS = ['started', 'submitted'] as const;

export const IdvAEventWebhook = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 200, description: 'Provider session id' }),
  action: literals(IDV_A_ACTIONS),
  vendorData: Type.String({ minLength: 1, maxLength: 400 }),
  attemptId: Type.Optional(Type.String()),
  code: Type.Optional(Type.Integer()),
});
export const IdvADecisionWebhook = Type.Object({
  status: Type.String(),
  verification: Type.Object({
    id: Type.String({ minLength: 1, maxLength: 200 }),
    status: literals(IDV_A_DECISIONS),
    vendorData: Type.String({ minLength: 1, maxLength: 400 }),
    code: Type.Optional(Type.Integer()),
    reason: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
    decisionTime: Type.Optional(Type.String()),
    person: Type.Optional(Person),
    document: Type.Optional(Document),
  }),
});

/** idv-a echoes "<tenantId>:<kycId>" as vendorData in every webhook. */
export function parseVendorData(vendorData: unknown): { tenantId: string; kycId: string } | undefined {
  if (typeof vendorData !== 'string') return undefined;
  const [tenantId, kycId, extra] = vendorData.split(':');
  if (extra !== undefined || !isUuid(tenantId) || !isUuid(kycId)) return undefined;
  return { tenantId: tenantId.toLowerCase(), kycId: kycId.toLowerCase() };
}

type Json = Record<string, unknown> | undefined;

/** What Bastion reads of POST /v1/sessions' answer. */
const SessionAnswer = providerAnswer('idv-a session', Type.Object({ verification: Type.Object({ id: SessionId, url: SessionUrl }) }));

/** idv-a's two webhook routes: a session event and a decision, the tenant in vendorData. */
export const IDV_A_WEBHOOK_ROUTES: readonly WebhookRoute[] = [
  {
    name: 'event',
    path: '/kyc/callback/idv-a/event',
    summary: 'idv-a session event (started, submitted)',
    body: IdvAEventWebhook,
    tenantOf: (body) => parseVendorData((body as Json)?.vendorData)?.tenantId,
  },
  {
    name: 'decision',
    path: '/kyc/callback/idv-a/decision',
    summary: 'idv-a verification decision',
    body: IdvADecisionWebhook,
    tenantOf: (body) => parseVendorData(((body as Json)?.verification as Json)?.vendorData)?.tenantId,
  },
];

/**
 * idv-a (a session-style provider, docs/providers.md): POST /v1/sessions with
 * `{verification: {vendorData, webhooks, callback, person}}`; a session event and a decision
 * webhook, each signed with HMAC-SHA256 of the raw body in x-hmac-signature.
 */
export function createIdvAAdapter(endpoint: IdvEndpoint, tenantId: string, options: IdvHttpOptions = {}): IdvPort {
  const post = signedPoster(options);
  /** The record a webhook names, when vendorData parses and names this tenant (the signer). */
  const ref = (vendorData: unknown) => {
    const parsed = parseVendorData(vendorData);
    return parsed && parsed.tenantId === tenantId.toLowerCase() ? parsed : undefined;
  };
  return {
    provider: 'idv-a',

    async createSession(request) {
      const base = request.callbackBaseUrl;
      const verification = {
        vendorData: `${tenantId}:${request.kycId}`,
        webhooks: { event: `${base}/kyc/callback/idv-a/event`, decision: `${base}/kyc/callback/idv-a/decision` },
        ...(request.returnUrl ? { callback: request.returnUrl } : {}),
        ...(request.person ? { person: request.person } : {}),
      };
      const { verification: session } = SessionAnswer.parse(await post(endpoint, '/v1/sessions', { verification }), malformedAnswer('idv-a'));
      return { sessionId: session.id, url: session.url };
    },

    readWebhook(route, body): IdvWebhook | { malformed: string } {
      if (route === 'event') {
        const b = body as { id: string; action: IdvWebhook['status']; vendorData: string };
        const r = ref(b.vendorData);
        if (!r) return { malformed: 'vendorData' };
        return { kind: 'event', kycId: r.kycId, sessionId: b.id, status: b.action, reason: null };
      }
      if (route === 'decision') {
        const v = (body as { verification: { id: string; status: IdvWebhook['status']; vendorData: string; reason?: string | null } & Pick<IdvWebhook, 'person' | 'document'> }).verification;
        const r = ref(v.vendorData);
        if (!r) return { malformed: 'verification.vendorData' };
        return { kind: 'decision', kycId: r.kycId, sessionId: v.id, status: v.status, reason: v.reason ?? null, person: v.person, document: v.document };
      }
      return { malformed: `route ${route}` };
    },
  };
}
