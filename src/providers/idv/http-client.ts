import { Type } from 'typebox';
import { IdvProviderError, type IdvEndpoint } from './port.js';
import { CLIENT_HEADER, SIGNATURE_HEADER, signBody } from './signature.js';

export interface IdvHttpOptions {
  fetch?: typeof fetch;
  timeoutMs?: number;
}

/** POSTs a JSON body signed with the tenant's secret; answers the parsed JSON or throws IdvProviderError. */
export function signedPoster(options: IdvHttpOptions = {}) {
  const doFetch = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? 10_000;
  return async function post(endpoint: IdvEndpoint, path: string, body: unknown): Promise<unknown> {
    const raw = JSON.stringify(body);
    let response: Response;
    try {
      response = await doFetch(endpoint.baseUrl.replace(/\/+$/, '') + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [CLIENT_HEADER]: endpoint.clientId, [SIGNATURE_HEADER]: signBody(raw, endpoint.secret) },
        body: raw,
        redirect: 'error',
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      throw new IdvProviderError('unreachable', `${endpoint.provider}: ${(error as Error).message}`);
    }
    const text = await response.text();
    if (!response.ok) throw new IdvProviderError('rejected', `${endpoint.provider}: HTTP ${response.status}`);
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new IdvProviderError('rejected', `${endpoint.provider}: response is not JSON`);
    }
  };
}

/** What a session answer must carry: a session id and the http(s) URL of its page. */
export const SessionId = Type.String({ minLength: 1, maxLength: 200 });
export const SessionUrl = Type.String({ pattern: '^https?://', maxLength: 2000 });

/** A provider's session answer, or a "rejected" error when it does not have the shape. */
export const rejectedAnswer = (provider: string) => (detail: string) => new IdvProviderError('rejected', `${provider}: ${detail}`);

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (value: unknown): value is string => typeof value === 'string' && UUID_RE.test(value);
