import { Type } from 'typebox';
import { providerAnswer } from '../../../platform/http/provider-answer.js';
import { ProviderError } from '../../../platform/providers/errors.js';
import type { CreateBusinessRequest, ProviderBusiness } from '../port.js';
import { fromWireBusiness, toWireCreate } from './protocol.js';

/** What Bastion needs of a business answer (the rest is read leniently by fromWireBusiness). */
const BusinessAnswer = providerAnswer(
  'business-profile-a business',
  Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }), status: Type.String({ minLength: 1, maxLength: 50 }), updated_at: Type.String({ minLength: 1, maxLength: 64 }) }),
);

/** Where and as whom to call the provider for one tenant. */
export interface BusinessProfileAEndpoint {
  baseUrl: string;
  apiKey: string;
}

export interface BusinessProfileAHttpOptions {
  fetch?: typeof fetch;
  timeoutMs?: number;
}

/**
 * One tenant's business-profile-a client: the provider's REST protocol (docs/providers.md) at
 * any base URL, the built-in sandbox by default, the real provider when a tenant is configured.
 * Failures are ProviderErrors (no answer: unreachable; its status otherwise; a 2xx of another
 * shape: malformed_answer). Bodies are never logged: they carry the TIN.
 */
export function createBusinessProfileAClient(endpoint: BusinessProfileAEndpoint, options: BusinessProfileAHttpOptions = {}) {
  const doFetch = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? 10_000;

  async function call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<ProviderBusiness> {
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
      throw new ProviderError('unreachable', `business-profile-a: ${(error as Error).name}`);
    }
    const text = await response.text();
    if (!response.ok) throw ProviderError.fromStatus(response.status, `business-profile-a: HTTP ${response.status}`);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new ProviderError('malformed_answer', 'business-profile-a: response is not JSON', response.status);
    }
    const business = fromWireBusiness(BusinessAnswer.parse(parsed, (detail) => new ProviderError('malformed_answer', detail, response.status)));
    if (!business) throw new ProviderError('malformed_answer', 'business-profile-a: response is not a business', response.status);
    return business;
  }

  return {
    createBusiness: (request: CreateBusinessRequest) => call('POST', '/v1/businesses', toWireCreate(request)),
    getBusiness: (businessId: string) => call('GET', `/v1/businesses/${encodeURIComponent(businessId)}`),
  };
}
