/**
 * The external identity provider (OpenID Connect): what the auth module's IdP login asks of
 * the tenant's provider. The port is bound to the tenant's settings (issuer, client, scopes,
 * the client URLs a login may return to); src/providers/idp/oidc/ declares the provider.
 */

/** What the provider asserted about the person, from the validated ID token (and UserInfo). */
export interface OidcIdentity {
  issuer: string;
  subject: string;
  email?: string;
  /** True only when the provider asserted `email_verified: true` for this email. */
  emailVerified: boolean;
  name?: string;
}

/**
 * Why a login the provider took part in did not give an identity (the provider's own answer
 * about this login, not its availability: that is a `ProviderError`).
 */
export type OidcFailure =
  /** The provider answered the authorization request with an error (access_denied...). */
  | 'provider_error'
  /** The token endpoint refused the code (expired, replayed, wrong PKCE verifier...). */
  | 'token_exchange_failed'
  /** The response or its ID token failed validation (nonce, issuer, audience, expiry, signature). */
  | 'invalid_id_token';

export class OidcError extends Error {
  constructor(
    readonly failure: OidcFailure,
    message: string,
    /** The provider's own error code, for provider_error. */
    readonly providerError?: string,
  ) {
    super(message);
    this.name = 'OidcError';
  }
}

export interface AuthorizationRequest {
  redirectUri: string;
  state: string;
  nonce: string;
  codeChallenge: string;
}

export interface CallbackChecks {
  /** The callback URL with the query the provider sent. */
  currentUrl: URL;
  state: string;
  nonce: string;
  codeVerifier: string;
}

/** The tenant's OpenID provider, as the relying party (Bastion) uses it. */
export interface IdpClient {
  /** The issuer identifier, exactly as the provider signs it (`iss`). */
  readonly issuer: string;
  readonly clientId: string;
  /** Space-separated; always holds `openid`. */
  readonly scopes: string;
  /** Client URLs a login may return to (scheme, host, port and path prefix), normalized. */
  readonly redirectAllow: readonly string[];
  newPkce(): Promise<{ verifier: string; challenge: string }>;
  newNonce(): string;
  /** The provider's authorization URL for this request (PKCE S256, nonce, state, the scopes). */
  authorizationUrl(request: AuthorizationRequest): Promise<string>;
  /** Validates the authorization response, exchanges the code and validates the ID token. */
  complete(checks: CallbackChecks): Promise<OidcIdentity>;
}

declare module '../../platform/providers/define.js' {
  interface ProviderPorts {
    idp: IdpClient;
  }
}
