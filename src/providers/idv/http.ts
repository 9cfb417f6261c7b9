import {
  CLIENT_HEADER,
  IdvProviderError,
  SIGNATURE_HEADER,
  signBody,
  type IdvASessionRequest,
  type IdvBSessionRequest,
  type IdvEndpoint,
  type IdvPort,
  type IdvSession,
} from './port.js';

export interface IdvHttpOptions {
  fetch?: typeof fetch;
  timeoutMs?: number;
}

/** The HTTP adapter: speaks the providers' protocols (docs/providers.md) to any base URL. */
export function createIdvHttpAdapter(options: IdvHttpOptions = {}): IdvPort {
  const doFetch = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? 10_000;

  async function post(endpoint: IdvEndpoint, path: string, body: unknown): Promise<unknown> {
    const raw = JSON.stringify(body);
    let response: Response;
    try {
      response = await doFetch(endpoint.baseUrl.replace(/\/+$/, '') + path, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          [CLIENT_HEADER]: endpoint.clientId,
          [SIGNATURE_HEADER]: signBody(raw, endpoint.secret),
        },
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
  }

  function session(provider: string, id: unknown, url: unknown): IdvSession {
    if (typeof id !== 'string' || !id || typeof url !== 'string' || !/^https?:\/\//.test(url)) {
      throw new IdvProviderError('rejected', `${provider}: response lacks a session id or URL`);
    }
    return { sessionId: id, url };
  }

  return {
    async createSessionA(endpoint: IdvEndpoint, request: IdvASessionRequest): Promise<IdvSession> {
      const body = (await post(endpoint, '/v1/sessions', { verification: request })) as {
        verification?: { id?: unknown; url?: unknown };
      };
      return session(endpoint.provider, body.verification?.id, body.verification?.url);
    },
    async createSessionB(endpoint: IdvEndpoint, request: IdvBSessionRequest): Promise<IdvSession> {
      const body = (await post(endpoint, '/v1/sessions', request)) as { sessionId?: unknown; url?: unknown };
      return session(endpoint.provider, body.sessionId, body.url);
    },
  };
}
