import type { CountryCode, PlaidApi, Products } from 'plaid';
import { Type, type Static, type TSchema } from 'typebox';
import { providerAnswer, type ProviderAnswer } from '../../../platform/http/provider-answer.js';
import { BankLinkProviderError, DILIGENCE_STATUSES, type BankAccount, type BankLinkEndpoint, type BankLinkPort } from '../port.js';

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

// What Bastion reads of each answer: the client's types are not checks, and a 2xx of another
// shape (`{"ok":true}`, an HTML page) must be a provider error (502), not a crash.
const Str = Type.String({ minLength: 1, maxLength: 2000 });
const OptStr = Type.Optional(Type.Union([Type.String({ maxLength: 2000 }), Type.Null()]));
const Diligence = Type.Union(DILIGENCE_STATUSES.map((d) => Type.Literal(d)));
const Time = Type.String({ minLength: 1, maxLength: 64, pattern: '^\\d{4}-\\d{2}-\\d{2}T' });
const Account = Type.Object({ account_id: Str, name: Type.String({ maxLength: 2000 }), official_name: OptStr, mask: OptStr, type: Str, subtype: OptStr });
const A = {
  linkToken: providerAnswer('bank-link link token', Type.Object({ link_token: Str, expiration: Time, hosted_link_url: OptStr })),
  exchange: providerAnswer('bank-link token exchange', Type.Object({ access_token: Str, item_id: Str })),
  accounts: providerAnswer(
    'bank-link accounts',
    Type.Object({
      item: Type.Object({ item_id: Str, institution_id: OptStr, institution_name: OptStr, error: Type.Optional(Type.Union([Type.Null(), Type.Object({ error_code: Str })])) }),
      accounts: Type.Array(Account, { maxItems: 500 }),
    }),
  ),
  removed: providerAnswer('bank-link item removal', Type.Object({})),
  originatorCreated: providerAnswer('bank-link originator', Type.Object({ originator_client_id: Str, company_name: Type.String({ maxLength: 2000 }) })),
  originators: providerAnswer(
    'bank-link originators',
    Type.Object({ originators: Type.Array(Type.Object({ client_id: Str, transfer_diligence_status: Diligence }), { maxItems: 1000 }) }),
  ),
  originator: providerAnswer(
    'bank-link originator',
    Type.Object({ originator: Type.Object({ client_id: Str, transfer_diligence_status: Diligence, company_name: Type.String({ maxLength: 2000 }) }) }),
  ),
  questionnaire: providerAnswer('bank-link questionnaire', Type.Object({ onboarding_url: Type.String({ pattern: '^https?://', maxLength: 2000 }) })),
  key: providerAnswer(
    'bank-link webhook key',
    Type.Object({
      key: Type.Object({
        alg: Str, crv: Str, kid: Str, kty: Str, use: Str, x: Str, y: Str,
        created_at: Type.Number(), expired_at: Type.Union([Type.Number(), Type.Null()]),
      }),
    }),
  ),
};

/** The provider's answer, checked against what is read of it; failures are BankLinkProviderError. */
async function call<T extends TSchema>(shape: ProviderAnswer<T>, work: () => Promise<{ data: unknown; status?: number }>): Promise<Static<T>> {
  let answer: { data: unknown; status?: number };
  try {
    answer = await work();
  } catch (error) {
    throw toProviderError(error);
  }
  // The provider answered 2xx, wrongly: its status is kept, so the module says "refused" (502 BANK_LINK_PROVIDER_ERROR).
  return shape.parse(answer.data, (detail) => new BankLinkProviderError(answer.status ?? 200, 'API_ERROR', 'UNEXPECTED_RESPONSE', detail));
}

const account = (a: Static<typeof Account>): BankAccount => ({
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
      const data = await call(A.linkToken, async () =>
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
      const data = await call(A.exchange, async () => (await client(endpoint)).itemPublicTokenExchange({ ...auth(endpoint), public_token: publicToken }));
      return { accessToken: data.access_token, itemId: data.item_id };
    },

    async getAccounts(endpoint, accessToken) {
      const data = await call(A.accounts, async () => (await client(endpoint)).accountsGet({ ...auth(endpoint), access_token: accessToken }));
      return {
        itemId: data.item.item_id,
        institutionId: data.item.institution_id ?? null,
        institutionName: data.item.institution_name ?? null,
        errorCode: data.item.error?.error_code ?? null,
        accounts: data.accounts.map(account),
      };
    },

    async removeItem(endpoint, accessToken) {
      await call(A.removed, async () => (await client(endpoint)).itemRemove({ ...auth(endpoint), access_token: accessToken }));
    },

    async createOriginator(endpoint, companyName) {
      const data = await call(A.originatorCreated, async () => (await client(endpoint)).transferOriginatorCreate({ ...auth(endpoint), company_name: companyName }));
      return { originatorClientId: data.originator_client_id, companyName: data.company_name };
    },

    async listOriginators(endpoint, page) {
      const data = await call(A.originators, async () => (await client(endpoint)).transferOriginatorList({ ...auth(endpoint), count: page.count, offset: page.offset }));
      return data.originators.map((o) => ({ clientId: o.client_id, diligenceStatus: o.transfer_diligence_status }));
    },

    async getOriginator(endpoint, originatorClientId) {
      const data = await call(A.originator, async () => (await client(endpoint)).transferOriginatorGet({ ...auth(endpoint), originator_client_id: originatorClientId }));
      const o = data.originator;
      return { clientId: o.client_id, diligenceStatus: o.transfer_diligence_status, companyName: o.company_name };
    },

    async createQuestionnaire(endpoint, originatorClientId, redirectUri) {
      const data = await call(A.questionnaire, async () =>
        (await client(endpoint)).transferQuestionnaireCreate({ ...auth(endpoint), originator_client_id: originatorClientId, redirect_uri: redirectUri }),
      );
      return { onboardingUrl: data.onboarding_url };
    },

    async getWebhookVerificationKey(endpoint, keyId) {
      const data = await call(A.key, async () => (await client(endpoint)).webhookVerificationKeyGet({ ...auth(endpoint), key_id: keyId }));
      return data.key;
    },
  };
}
