import { createHash } from 'node:crypto';
import { systemClock, type Clock } from '../../platform/clock.js';
import * as oidc from 'openid-client';
import { isLoopbackHost } from '../../platform/http/hosts.js';

/** How Bastion is registered at a tenant's OpenID provider. */
export interface OidcClientSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
}

/** What the provider asserted about the person, from the validated ID token (and UserInfo). */
export interface OidcIdentity {
  issuer: string;
  subject: string;
  email?: string;
  /** True only when the provider asserted `email_verified: true` for this email. */
  emailVerified: boolean;
  name?: string;
}

export type OidcFailure =
  /** The provider answered the authorization request with an error (access_denied...). */
  | 'provider_error'
  /** The token endpoint refused the code (expired, replayed, wrong PKCE verifier...). */
  | 'token_exchange_failed'
  /** The response or its ID token failed validation (nonce, issuer, audience, expiry, signature). */
  | 'invalid_id_token'
  /** The provider could not be reached or answered nonsense. */
  | 'idp_unavailable';

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
  scope: string;
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

/** The relying-party side of OpenID Connect, as Bastion uses it. */
export interface OidcPort {
  newPkce(): Promise<{ verifier: string; challenge: string }>;
  newNonce(): string;
  authorizationUrl(settings: OidcClientSettings, request: AuthorizationRequest): Promise<string>;
  /** Validates the authorization response, exchanges the code and validates the ID token. */
  complete(settings: OidcClientSettings, checks: CallbackChecks): Promise<OidcIdentity>;
}

const DISCOVERY_TTL_MS = 60 * 60_000;
const TIMEOUT_SECONDS = 10;

function claimString(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/**
 * The adapter over `openid-client` (a certified relying-party library): discovery, PKCE S256,
 * nonce, the authorization-code grant, and ID-token validation including its signature
 * against the provider's JWKS. Discovery documents are cached per client for an hour.
 * Plain http is accepted only for loopback issuers (development and tests).
 */
export function createOidcClient(options: { clock?: Clock } = {}): OidcPort {
  const clock = options.clock ?? systemClock;
  const configs = new Map<string, { at: number; config: Promise<oidc.Configuration> }>();

  function configFor(settings: OidcClientSettings): Promise<oidc.Configuration> {
    const key = createHash('sha256').update(JSON.stringify([settings.issuer, settings.clientId, settings.clientSecret])).digest('hex');
    const cached = configs.get(key);
    if (cached && clock.now().getTime() - cached.at < DISCOVERY_TTL_MS) return cached.config;
    const issuer = new URL(settings.issuer);
    const execute = [oidc.enableNonRepudiationChecks];
    if (issuer.protocol === 'http:' && isLoopbackHost(issuer.hostname)) execute.push(oidc.allowInsecureRequests);
    const config = oidc
      .discovery(issuer, settings.clientId, settings.clientSecret, undefined, { execute, timeout: TIMEOUT_SECONDS })
      .catch((error: unknown) => {
        configs.delete(key);
        throw new OidcError('idp_unavailable', `OpenID discovery of ${settings.issuer} failed: ${describe(error)}`);
      });
    configs.set(key, { at: clock.now().getTime(), config });
    return config;
  }

  return {
    async newPkce() {
      const verifier = oidc.randomPKCECodeVerifier();
      return { verifier, challenge: await oidc.calculatePKCECodeChallenge(verifier) };
    },

    newNonce: () => oidc.randomNonce(),

    async authorizationUrl(settings, request) {
      const config = await configFor(settings);
      return oidc
        .buildAuthorizationUrl(config, {
          redirect_uri: request.redirectUri,
          scope: request.scope,
          response_type: 'code',
          state: request.state,
          nonce: request.nonce,
          code_challenge: request.codeChallenge,
          code_challenge_method: 'S256',
        })
        .toString();
    },

    async complete(settings, checks) {
      const config = await configFor(settings);
      let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
      try {
        tokens = await oidc.authorizationCodeGrant(config, checks.currentUrl, {
          expectedState: checks.state,
          expectedNonce: checks.nonce,
          pkceCodeVerifier: checks.codeVerifier,
          idTokenExpected: true,
        });
      } catch (error) {
        throw classify(error);
      }
      const claims = tokens.claims();
      if (!claims) throw new OidcError('invalid_id_token', 'the provider returned no ID token');
      let email = claimString(claims.email);
      let emailVerified = claims.email_verified === true;
      let name = claimString(claims.name);
      // Providers that follow the claim rules strictly put scope claims in UserInfo only.
      if (!email && config.serverMetadata().userinfo_endpoint) {
        try {
          const info = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
          email = claimString(info.email);
          emailVerified = info.email_verified === true;
          name ??= claimString(info.name);
        } catch (error) {
          throw classify(error);
        }
      }
      return { issuer: claims.iss, subject: claims.sub, email, emailVerified, name };
    },
  };
}

function describe(error: unknown): string {
  // openid-client wraps oauth4webapi's error, which names the claim that failed (nonce, iss, aud...).
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current; depth++) {
    if (current instanceof Error) parts.push(current.message);
    const claim = (current as { claim?: unknown }).claim;
    if (typeof claim === 'string') parts.push(`claim ${claim}`);
    current = (current as { cause?: unknown }).cause;
  }
  return parts.length > 0 ? parts.join(': ') : String(error);
}

/** oauth4webapi codes of a response that arrived but is not acceptable. */
const VALIDATION_CODES = new Set([
  'OAUTH_INVALID_RESPONSE',
  'OAUTH_RESPONSE_IS_NOT_CONFORM',
  'OAUTH_PARSE_ERROR',
  'OAUTH_JWT_TIMESTAMP_CHECK_FAILED',
  'OAUTH_JWT_CLAIM_COMPARISON_FAILED',
  'OAUTH_JSON_ATTRIBUTE_COMPARISON_FAILED',
  'OAUTH_KEY_SELECTION_FAILED',
]);

function classify(error: unknown): OidcError {
  if (error instanceof OidcError) return error;
  if (error instanceof oidc.AuthorizationResponseError) {
    return new OidcError('provider_error', `the provider answered ${error.error}`, error.error);
  }
  if (error instanceof oidc.ResponseBodyError) {
    return new OidcError('token_exchange_failed', `the token endpoint answered ${error.error}`);
  }
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string' && (VALIDATION_CODES.has(code) || code.startsWith('ERR_JW'))) {
    return new OidcError('invalid_id_token', `the provider's response failed validation (${code}): ${describe(error)}`);
  }
  return new OidcError('idp_unavailable', `the provider could not be used: ${describe(error)}`);
}
