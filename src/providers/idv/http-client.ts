import { Type } from 'typebox';
import type { AdapterConfig, InboundWebhook } from '../../platform/providers/define.js';
import { ProviderError } from '../../platform/providers/errors.js';
import { WebhookErrors } from '../../platform/providers/service.js';
import type { IdvProviderName } from './port.js';
import { CLIENT_HEADER, SIGNATURE_HEADER, signBody, verifyBodySignature } from './signature.js';

export interface IdvHttpOptions {
  fetch?: typeof fetch;
  timeoutMs?: number;
}

/** Where and as whom to call a provider for one tenant: its settings `client-id` and secret `webhook-secret`. */
export interface IdvEndpoint {
  provider: IdvProviderName;
  baseUrl: string;
  clientId: string;
  secret: string;
}

/** The settings and secrets both providers take (`provider configure --kind idv`). */
export const IDV_SETTINGS = { 'client-id': { required: true, description: 'the id the provider knows the tenant by (x-auth-client)' } };
export const IDV_SECRETS = { 'webhook-secret': { required: true, description: 'the shared secret of the HMAC signatures (16 characters or more)' } };

/** The tenant's endpoint from its settings; missing ones are "not configured". */
export function endpointOf(provider: IdvProviderName, config: AdapterConfig): IdvEndpoint {
  const clientId = config.settings['client-id'];
  const secret = config.secrets['webhook-secret'];
  if (!clientId || !secret) throw ProviderError.notConfigured('idv', provider, 'its settings lack client-id or webhook-secret');
  return { provider, baseUrl: config.baseUrl, clientId, secret };
}

/**
 * Both providers' webhook check: HMAC-SHA256 of the exact bytes under the tenant's secret,
 * hex in x-hmac-signature (401 WEBHOOK_SIGNATURE_MISSING without it).
 */
export function verifyIdvWebhook(request: InboundWebhook, config: AdapterConfig): boolean {
  const signature = request.headers[SIGNATURE_HEADER];
  if (typeof signature !== 'string' || signature === '') throw WebhookErrors.signatureMissing(SIGNATURE_HEADER);
  const secret = config.secrets['webhook-secret'];
  return Boolean(secret) && verifyBodySignature(Buffer.from(request.rawBody, 'utf8'), signature, secret!);
}

/**
 * POSTs a JSON body signed with the tenant's secret; answers the parsed JSON. Failures are
 * ProviderErrors: a network error or 5xx is unreachable, a 401/403 unauthorized, any other 4xx
 * refused (a 404 too: the provider has no such endpoint, which is no object the caller named),
 * a 2xx that is not JSON a malformed answer.
 */
export function signedPoster(options: IdvHttpOptions = {}) {
  const doFetch = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? 10_000;
  return async function post(endpoint: IdvEndpoint, path: string, body: unknown): Promise<unknown> {
    const raw = JSON.stringify(body);
    let response: Response;
    let text: string;
    try {
      response = await doFetch(endpoint.baseUrl.replace(/\/+$/, '') + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [CLIENT_HEADER]: endpoint.clientId, [SIGNATURE_HEADER]: signBody(raw, endpoint.secret) },
        body: raw,
        redirect: 'error',
        signal: AbortSignal.timeout(timeoutMs),
      });
      text = await response.text();
    } catch (error) {
      throw new ProviderError('unreachable', `${endpoint.provider}: ${(error as Error).message}`);
    }
    if (!response.ok) {
      const error = ProviderError.fromStatus(response.status, `${endpoint.provider}: HTTP ${response.status}`);
      throw error.reason === 'not_found' ? new ProviderError('refused', error.message, response.status) : error;
    }
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new ProviderError('malformed_answer', `${endpoint.provider}: the answer is not JSON`, response.status);
    }
  };
}

/** What a session answer must carry: a session id and the http(s) URL of its page. */
export const SessionId = Type.String({ minLength: 1, maxLength: 200 });
export const SessionUrl = Type.String({ pattern: '^https?://', maxLength: 2000 });

/** A session answer of the wrong shape. */
export const malformedAnswer = (provider: string) => (detail: string) => new ProviderError('malformed_answer', `${provider}: ${detail}`);

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (value: unknown): value is string => typeof value === 'string' && UUID_RE.test(value);

