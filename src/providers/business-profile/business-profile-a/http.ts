import { Type } from 'typebox';
import { providerAnswer } from '../../../platform/http/provider-answer.js';
import {
  BusinessProfileProviderError,
  type BusinessProfileEndpoint,
  type BusinessProfilePort,
  type CreateBusinessRequest,
  type ProviderBusiness,
} from '../port.js';
import { fromWireBusiness, parseEvent, toWireCreate, verifySignature } from './protocol.js';

/** What Bastion needs of a business answer (the rest is read leniently by fromWireBusiness). */
const BusinessAnswer = providerAnswer(
  'business-profile-a business',
  Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }), status: Type.String({ minLength: 1, maxLength: 50 }), updated_at: Type.String({ minLength: 1, maxLength: 64 }) }),
);

export interface BusinessProfileAHttpOptions {
  fetch?: typeof fetch;
  timeoutMs?: number;
}

/**
 * The business-profile-a adapter: speaks the provider's REST protocol (docs/providers.md) to
 * any base URL: the built-in sandbox by default, the real provider when a tenant is configured.
 * Bodies are never logged: they carry the TIN.
 */
export function createBusinessProfileAHttpAdapter(options: BusinessProfileAHttpOptions = {}): BusinessProfilePort {
  const doFetch = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? 10_000;

  async function call(endpoint: BusinessProfileEndpoint, method: 'GET' | 'POST', path: string, body?: unknown): Promise<ProviderBusiness> {
    let response: Response;
    try {
      response = await doFetch(endpoint.baseUrl.replace(/\/+$/, '') + path, {
        method,
        headers: {
          accept: 'application/json',
          authorization: `Bearer ${endpoint.apiKey}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        redirect: 'error',
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      throw new BusinessProfileProviderError('unreachable', `business-profile-a: ${(error as Error).name}`);
    }
    const text = await response.text();
    if (!response.ok) throw new BusinessProfileProviderError('rejected', `business-profile-a: HTTP ${response.status}`);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new BusinessProfileProviderError('rejected', 'business-profile-a: response is not JSON');
    }
    const business = fromWireBusiness(BusinessAnswer.parse(parsed, (detail) => new BusinessProfileProviderError('rejected', detail)));
    if (!business) throw new BusinessProfileProviderError('rejected', 'business-profile-a: response is not a business');
    return business;
  }

  return {
    createBusiness: (endpoint, request: CreateBusinessRequest) => call(endpoint, 'POST', '/v1/businesses', toWireCreate(request)),
    getBusiness: (endpoint, businessId) => call(endpoint, 'GET', `/v1/businesses/${encodeURIComponent(businessId)}`),
    verifyWebhook(raw, signature, secret) {
      if (!verifySignature(raw, signature, secret)) return undefined;
      return parseEvent(raw);
    },
  };
}
