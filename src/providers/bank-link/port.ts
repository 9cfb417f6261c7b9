/**
 * The bank-link provider port: bank-account linking (link token -> Link page -> public token
 * -> access token and item) and a platform's originators with their KYB diligence. One
 * protocol speaks it, Plaid's (docs/providers.md); the built-in sandbox speaks the same.
 */

/** Where and as whom to call the provider for one tenant. */
export interface BankLinkEndpoint {
  baseUrl: string;
  clientId: string;
  secret: string;
}

export interface LinkTokenRequest {
  clientName: string;
  /** Stable id of the person (or the tenant) the item will belong to. */
  clientUserId: string;
  webhook: string;
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

/** The provider answered with an error (`error_type`, `error_code`), or could not be reached. */
export class BankLinkProviderError extends Error {
  constructor(
    /** HTTP status of the provider's answer; 0 when unreachable. */
    readonly status: number,
    readonly errorType: string,
    readonly errorCode: string,
    message: string,
    readonly requestId?: string,
  ) {
    super(message);
    this.name = 'BankLinkProviderError';
  }
}

export interface BankLinkPort {
  createLinkToken(endpoint: BankLinkEndpoint, request: LinkTokenRequest): Promise<LinkToken>;
  exchangePublicToken(endpoint: BankLinkEndpoint, publicToken: string): Promise<{ accessToken: string; itemId: string }>;
  getAccounts(endpoint: BankLinkEndpoint, accessToken: string): Promise<ItemAccounts>;
  removeItem(endpoint: BankLinkEndpoint, accessToken: string): Promise<void>;
  createOriginator(endpoint: BankLinkEndpoint, companyName: string): Promise<{ originatorClientId: string; companyName: string }>;
  listOriginators(endpoint: BankLinkEndpoint, page: { count: number; offset: number }): Promise<OriginatorSummary[]>;
  getOriginator(endpoint: BankLinkEndpoint, originatorClientId: string): Promise<OriginatorDetail>;
  createQuestionnaire(endpoint: BankLinkEndpoint, originatorClientId: string, redirectUri: string): Promise<{ onboardingUrl: string }>;
  getWebhookVerificationKey(endpoint: BankLinkEndpoint, keyId: string): Promise<WebhookKey>;
}

/** The header that carries a webhook's signature: an ES256 JWT over the body's SHA-256. */
export const VERIFICATION_HEADER = 'plaid-verification';
/** A webhook whose JWT was issued longer ago than this is refused (replays). */
export const WEBHOOK_MAX_AGE_SECONDS = 5 * 60;
