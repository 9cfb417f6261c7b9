import type { CountryCode, PlaidApi, Products } from 'plaid';
import { Type, type Static, type TSchema } from 'typebox';
import { providerAnswer, type ProviderAnswer } from '../../../platform/http/provider-answer.js';
import { ProviderError } from '../../../platform/providers/errors.js';
import { DILIGENCE_STATUSES, type BankAccount, type LinkTokenRequest, type LinkToken, type ItemAccounts, type OriginatorDetail, type OriginatorSummary, type WebhookKey } from '../port.js';

/** Where and as whom to call the provider for one tenant. */
export interface PlaidEndpoint {
  baseUrl: string;
  clientId: string;
  secret: string;
}

const TIMEOUT_MS = 10_000;

interface ClientError {
  isAxiosError: true;
  message: string;
  response?: { status: number; data?: unknown };
}
const isClientError = (error: unknown): error is ClientError =>
  typeof error === 'object' && error !== null && (error as { isAxiosError?: unknown }).isAxiosError === true;

/**
 * The provider's error codes that say it does not know the object named: the public token
 * (expired, used, another client's), the access token (item removed), the originator, the key id.
 */
const NOT_FOUND_CODES = new Set(['INVALID_PUBLIC_TOKEN', 'INVALID_ACCESS_TOKEN', 'ORIGINATOR_NOT_FOUND', 'INVALID_WEBHOOK_VERIFICATION_KEY_ID']);
/** Codes that refuse the tenant's credentials. */
const UNAUTHORIZED_CODES = new Set(['INVALID_API_KEYS', 'UNAUTHORIZED_ENVIRONMENT', 'INVALID_SECRET', 'INVALID_CLIENT_ID']);

/**
 * A failed call as a ProviderError: the provider's error body (`{ error_type, error_code,
 * error_message, request_id }`) by its code, else by the HTTP status (unreachable when there
 * was no answer or a 5xx).
 */
function toProviderError(error: unknown): ProviderError {
  // The client (axios) rejects with the answer attached; duck-typed, as axios is the client's own dependency.
  if (isClientError(error)) {
    const status = error.response?.status ?? 0;
    const data = error.response?.data as { error_code?: unknown; error_message?: unknown } | undefined;
    if (error.response && typeof data?.error_code === 'string' && status < 500) {
      const code = data.error_code;
      const message = `bank-link provider: ${typeof data.error_message === 'string' ? data.error_message : code} (${code})`.slice(0, 500);
      if (NOT_FOUND_CODES.has(code)) return new ProviderError('not_found', message, status, code);
      if (UNAUTHORIZED_CODES.has(code)) return new ProviderError('unauthorized', message, status, code);
      return ProviderError.fromStatus(status === 404 ? 400 : status, message, code);
    }
    // No provider error body: a 404 of another server is not "the object is unknown".
    return ProviderError.fromStatus(status === 404 ? 400 : status, `bank-link provider: ${error.message}`);
  }
  return new ProviderError('unreachable', `bank-link provider: ${(error as Error).message}`);
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

/** The provider's answer, checked against what is read of it; failures are ProviderErrors. */
async function call<T extends TSchema>(shape: ProviderAnswer<T>, work: () => Promise<{ data: unknown; status?: number }>): Promise<Static<T>> {
  let answer: { data: unknown; status?: number };
  try {
    answer = await work();
  } catch (error) {
    throw toProviderError(error);
  }
  // The provider answered 2xx, wrongly: a malformed answer (502), never a crash.
  return shape.parse(answer.data, (detail) => new ProviderError('malformed_answer', detail, answer.status ?? 200));
}

const account = (a: Static<typeof Account>): BankAccount => ({
  accountId: a.account_id,
  name: a.name,
  officialName: a.official_name ?? null,
  mask: a.mask ?? null,
  type: a.type,
  subtype: a.subtype ?? null,
});

/** The official client, loaded at the first call: it weighs about 55 MiB of memory, which a service that never links a bank account should not carry. */
let plaidModule: Promise<typeof import('plaid')> | undefined;

/**
 * One tenant's client: the provider's official Node client (`plaid`), its base path pointed at
 * the tenant's environment (the built-in sandbox by default). Credentials travel in the body.
 */
export function createPlaidClient(endpoint: PlaidEndpoint) {
  let api: Promise<PlaidApi> | undefined;
  const client = (): Promise<PlaidApi> =>
    (api ??= (plaidModule ??= import('plaid')).then(
      // The client follows no redirects: an answer from elsewhere is not the provider's.
      ({ Configuration, PlaidApi }) => new PlaidApi(new Configuration({ basePath: endpoint.baseUrl, baseOptions: { timeout: TIMEOUT_MS, maxRedirects: 0 } })),
    ));
  const auth = { client_id: endpoint.clientId, secret: endpoint.secret };

  return {
    async createLinkToken(request: LinkTokenRequest & { webhook: string }): Promise<LinkToken> {
      const data = await call(A.linkToken, async () =>
        (await client()).linkTokenCreate({
          ...auth,
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

    async exchangePublicToken(publicToken: string): Promise<{ accessToken: string; itemId: string }> {
      const data = await call(A.exchange, async () => (await client()).itemPublicTokenExchange({ ...auth, public_token: publicToken }));
      return { accessToken: data.access_token, itemId: data.item_id };
    },

    async getAccounts(accessToken: string): Promise<ItemAccounts> {
      const data = await call(A.accounts, async () => (await client()).accountsGet({ ...auth, access_token: accessToken }));
      return {
        itemId: data.item.item_id,
        institutionId: data.item.institution_id ?? null,
        institutionName: data.item.institution_name ?? null,
        errorCode: data.item.error?.error_code ?? null,
        accounts: data.accounts.map(account),
      };
    },

    async removeItem(accessToken: string): Promise<void> {
      await call(A.removed, async () => (await client()).itemRemove({ ...auth, access_token: accessToken }));
    },

    async createOriginator(companyName: string): Promise<{ originatorClientId: string; companyName: string }> {
      const data = await call(A.originatorCreated, async () => (await client()).transferOriginatorCreate({ ...auth, company_name: companyName }));
      return { originatorClientId: data.originator_client_id, companyName: data.company_name };
    },

    async listOriginators(page: { count: number; offset: number }): Promise<OriginatorSummary[]> {
      const data = await call(A.originators, async () => (await client()).transferOriginatorList({ ...auth, count: page.count, offset: page.offset }));
      return data.originators.map((o) => ({ clientId: o.client_id, diligenceStatus: o.transfer_diligence_status }));
    },

    async getOriginator(originatorClientId: string): Promise<OriginatorDetail> {
      const data = await call(A.originator, async () => (await client()).transferOriginatorGet({ ...auth, originator_client_id: originatorClientId }));
      const o = data.originator;
      return { clientId: o.client_id, diligenceStatus: o.transfer_diligence_status, companyName: o.company_name };
    },

    async createQuestionnaire(originatorClientId: string, redirectUri: string): Promise<{ onboardingUrl: string }> {
      const data = await call(A.questionnaire, async () =>
        (await client()).transferQuestionnaireCreate({ ...auth, originator_client_id: originatorClientId, redirect_uri: redirectUri }),
      );
      return { onboardingUrl: data.onboarding_url };
    },

    async getWebhookVerificationKey(keyId: string): Promise<WebhookKey> {
      const data = await call(A.key, async () => (await client()).webhookVerificationKeyGet({ ...auth, key_id: keyId }));
      return data.key;
    },
  };
}

export type PlaidClient = ReturnType<typeof createPlaidClient>;
