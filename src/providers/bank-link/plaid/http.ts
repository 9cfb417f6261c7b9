import type { AccountBase, CountryCode, PlaidApi, Products } from 'plaid';
import { BankLinkProviderError, type BankAccount, type BankLinkEndpoint, type BankLinkPort, type DiligenceStatus } from '../port.js';

const TIMEOUT_MS = 10_000;

interface ClientError {
  isAxiosError: true;
  message: string;
  response?: { status: number; data?: unknown };
}
const isClientError = (error: unknown): error is ClientError =>
  typeof error === 'object' && error !== null && (error as { isAxiosError?: unknown }).isAxiosError === true;

/** The provider's error body: `{ error_type, error_code, error_message, request_id }`. */
function toProviderError(error: unknown): BankLinkProviderError {
  // The client (axios) rejects with the answer attached; duck-typed, as axios is the client's own dependency.
  if (isClientError(error)) {
    const data = error.response?.data as { error_type?: unknown; error_code?: unknown; error_message?: unknown; request_id?: unknown } | undefined;
    if (error.response && typeof data?.error_code === 'string') {
      return new BankLinkProviderError(
        error.response.status,
        String(data.error_type ?? 'API_ERROR'),
        data.error_code,
        typeof data.error_message === 'string' ? data.error_message : data.error_code,
        typeof data.request_id === 'string' ? data.request_id : undefined,
      );
    }
    const status = error.response?.status ?? 0;
    return new BankLinkProviderError(status, 'API_ERROR', status ? 'UNEXPECTED_RESPONSE' : 'UNREACHABLE', `bank-link provider: ${error.message}`);
  }
  return new BankLinkProviderError(0, 'API_ERROR', 'UNREACHABLE', `bank-link provider: ${(error as Error).message}`);
}

async function call<T>(work: () => Promise<{ data: T }>): Promise<T> {
  try {
    return (await work()).data;
  } catch (error) {
    throw toProviderError(error);
  }
}

const account = (a: AccountBase): BankAccount => ({
  accountId: a.account_id,
  name: a.name,
  officialName: a.official_name ?? null,
  mask: a.mask ?? null,
  type: a.type,
  subtype: a.subtype ?? null,
});

/**
 * The adapter: the provider's official Node client (`plaid`), its base path pointed at the
 * tenant's environment (the built-in sandbox by default). Credentials travel in the body.
 */
export function createPlaidAdapter(): BankLinkPort {
  const clients = new Map<string, PlaidApi>();
  const client = async (endpoint: BankLinkEndpoint): Promise<PlaidApi> => {
    let api = clients.get(endpoint.baseUrl);
    if (!api) {
      // Loaded at the first call: the official client weighs about 55 MiB of memory, which a
      // service that never links a bank account should not carry.
      const { Configuration, PlaidApi } = await import('plaid');
      // The client follows no redirects: an answer from elsewhere is not the provider's.
      api = new PlaidApi(new Configuration({ basePath: endpoint.baseUrl, baseOptions: { timeout: TIMEOUT_MS, maxRedirects: 0 } }));
      if (clients.size > 100) clients.clear();
      clients.set(endpoint.baseUrl, api);
    }
    return api;
  };
  const auth = (endpoint: BankLinkEndpoint) => ({ client_id: endpoint.clientId, secret: endpoint.secret });

  return {
    async createLinkToken(endpoint, request) {
      const data = await call(async () =>
        (await client(endpoint)).linkTokenCreate({
          ...auth(endpoint),
          client_name: request.clientName,
          language: 'en',
          country_codes: ['US' as CountryCode],
          user: { client_user_id: request.clientUserId },
          products: ['auth' as Products],
          webhook: request.webhook,
          hosted_link: { completion_redirect_uri: request.completionRedirectUri },
        }),
      );
      return { linkToken: data.link_token, expiration: data.expiration, hostedLinkUrl: data.hosted_link_url ?? null };
    },

    async exchangePublicToken(endpoint, publicToken) {
      const data = await call(async () => (await client(endpoint)).itemPublicTokenExchange({ ...auth(endpoint), public_token: publicToken }));
      return { accessToken: data.access_token, itemId: data.item_id };
    },

    async getAccounts(endpoint, accessToken) {
      const data = await call(async () => (await client(endpoint)).accountsGet({ ...auth(endpoint), access_token: accessToken }));
      return {
        itemId: data.item.item_id,
        institutionId: data.item.institution_id ?? null,
        institutionName: data.item.institution_name ?? null,
        errorCode: data.item.error?.error_code ?? null,
        accounts: data.accounts.map(account),
      };
    },

    async removeItem(endpoint, accessToken) {
      await call(async () => (await client(endpoint)).itemRemove({ ...auth(endpoint), access_token: accessToken }));
    },

    async createOriginator(endpoint, companyName) {
      const data = await call(async () => (await client(endpoint)).transferOriginatorCreate({ ...auth(endpoint), company_name: companyName }));
      return { originatorClientId: data.originator_client_id, companyName: data.company_name };
    },

    async listOriginators(endpoint, page) {
      const data = await call(async () => (await client(endpoint)).transferOriginatorList({ ...auth(endpoint), count: page.count, offset: page.offset }));
      return data.originators.map((o) => ({ clientId: o.client_id, diligenceStatus: o.transfer_diligence_status as DiligenceStatus }));
    },

    async getOriginator(endpoint, originatorClientId) {
      const data = await call(async () => (await client(endpoint)).transferOriginatorGet({ ...auth(endpoint), originator_client_id: originatorClientId }));
      const o = data.originator;
      return { clientId: o.client_id, diligenceStatus: o.transfer_diligence_status as DiligenceStatus, companyName: o.company_name };
    },

    async createQuestionnaire(endpoint, originatorClientId, redirectUri) {
      const data = await call(async () =>
        (await client(endpoint)).transferQuestionnaireCreate({ ...auth(endpoint), originator_client_id: originatorClientId, redirect_uri: redirectUri }),
      );
      return { onboardingUrl: data.onboarding_url };
    },

    async getWebhookVerificationKey(endpoint, keyId) {
      const data = await call(async () => (await client(endpoint)).webhookVerificationKeyGet({ ...auth(endpoint), key_id: keyId }));
      return data.key;
    },
  };
}
