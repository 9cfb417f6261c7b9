/**
 * The bank-link provider port: bank-account linking (link token -> Link page -> public token
 * -> access token and item) and a platform's originators with their KYB diligence. One
 * protocol speaks it, Plaid's (docs/providers.md); the built-in sandbox speaks the same.
 *
 * A port is one tenant's (its credentials bound in), made by the provider's definition
 * (src/providers/bank-link/plaid/index.ts) and reached with
 * `platform.providers.port(tenantId, 'bank-link')`. Failures are `ProviderError`s; a public
 * token, access token or originator the provider does not know is the reason `not_found`.
 */

export interface LinkTokenRequest {
  clientName: string;
  /** Stable id of the person (or the tenant) the item will belong to. */
  clientUserId: string;
  /** Where the hosted Link page sends the browser when done. */
  completionRedirectUri: string;
}

export interface LinkToken {
  linkToken: string;
  expiration: string;
  /** The hosted Link page to open with this token. */
  hostedLinkUrl: string | null;
}

export interface BankAccount {
  accountId: string;
  name: string;
  officialName: string | null;
  mask: string | null;
  type: string;
  subtype: string | null;
}

export interface ItemAccounts {
  itemId: string;
  institutionId: string | null;
  institutionName: string | null;
  errorCode: string | null;
  accounts: BankAccount[];
}

export const DILIGENCE_STATUSES = ['not_submitted', 'submitted', 'under_review', 'approved', 'denied', 'more_information_required'] as const;
export type DiligenceStatus = (typeof DILIGENCE_STATUSES)[number];

export interface OriginatorSummary {
  clientId: string;
  diligenceStatus: DiligenceStatus;
}

export interface OriginatorDetail extends OriginatorSummary {
  companyName: string;
}

/** A public key that verifies webhooks (a JWK with the provider's timestamps). */
export interface WebhookKey {
  alg: string;
  crv: string;
  kid: string;
  kty: string;
  use: string;
  x: string;
  y: string;
  created_at: number;
  expired_at: number | null;
}

/** One tenant's bank-link provider, with the tenant's settings of the kind. */
export interface BankLinkClient {
  /** `sandbox` or `production`: the sandbox originator routes answer only for `sandbox`. */
  readonly environment: 'sandbox' | 'production';
  /** The return URLs the Link page and the KYB questionnaire may go back to (setting `redirect-allow`). */
  readonly redirectAllow: readonly string[];
  /** The tenant's own originator, its funding profile (setting `originator-client-id`); null until one. */
  readonly ownOriginator: string | null;
  /** True when these are the tenant's credentials at the provider (compared in constant time). */
  isOwnCredential(input: { clientId: string; secret: string }): boolean;
  /** The link token names the tenant's webhook address itself. */
  createLinkToken(request: LinkTokenRequest): Promise<LinkToken>;
  exchangePublicToken(publicToken: string): Promise<{ accessToken: string; itemId: string }>;
  getAccounts(accessToken: string): Promise<ItemAccounts>;
  removeItem(accessToken: string): Promise<void>;
  createOriginator(companyName: string): Promise<{ originatorClientId: string; companyName: string }>;
  listOriginators(page: { count: number; offset: number }): Promise<OriginatorSummary[]>;
  getOriginator(originatorClientId: string): Promise<OriginatorDetail>;
  createQuestionnaire(originatorClientId: string, redirectUri: string): Promise<{ onboardingUrl: string }>;
  /**
   * The webhook verification key of this id (an ES256 P-256 key), fetched once and kept by the
   * port (per tenant per settings version); undefined when the provider does not give one. An
   * id the provider did not know is not asked about again for a minute. The definition's
   * webhook check uses it.
   */
  webhookKey(keyId: string): Promise<{ key: WebhookVerifyKey; expiredAt: number | null } | undefined>;
}

/** An imported webhook verification key (jose). */
export type WebhookVerifyKey = Awaited<ReturnType<typeof import('jose').importJWK>>;

/** The kind's settings beside the provider account's: the return allow-list (URLs, space-separated; kept across configure). */
export const REDIRECT_ALLOW_SETTING = 'redirect-allow';
/** The kind's setting naming the tenant's own originator (forgotten when the provider account changes). */
export const OWN_ORIGINATOR_SETTING = 'originator-client-id';

/** The header that carries a webhook's signature: an ES256 JWT over the body's SHA-256. */
export const VERIFICATION_HEADER = 'plaid-verification';
/** A webhook whose JWT was issued longer ago than this is refused (replays). */
export const WEBHOOK_MAX_AGE_SECONDS = 5 * 60;

declare module '../../platform/providers/define.js' {
  interface ProviderPorts {
    'bank-link': BankLinkClient;
  }
}
