import { systemClock, type Clock } from '../../../platform/clock.js';
import * as oidc from 'openid-client';
import { isLoopbackHost } from '../../../platform/http/hosts.js';
import { ProviderError } from '../../../platform/providers/errors.js';
import { OidcError, type AuthorizationRequest, type CallbackChecks, type OidcIdentity } from '../port.js';

/** How Bastion is registered at a tenant's OpenID provider. */
export interface OidcClientSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
}

/** The relying-party side of OpenID Connect for one client registration. */
export interface OidcRelyingParty {
  newPkce(): Promise<{ verifier: string; challenge: string }>;
  newNonce(): string;
  authorizationUrl(request: AuthorizationRequest & { scope: string }): Promise<string>;
  complete(checks: CallbackChecks): Promise<OidcIdentity>;
}

const DISCOVERY_TTL_MS = 60 * 60_000;
const TIMEOUT_SECONDS = 10;

function claimString(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/**
 * The adapter over `openid-client` (a certified relying-party library) for one client
 * registration: discovery, PKCE S256, nonce, the authorization-code grant, and ID-token
 * validation including its signature against the provider's JWKS. The discovery document is
 * kept for an hour (the adapter itself lives as long as the tenant's settings version). Plain
 * http is accepted only for loopback issuers (development and tests). A provider that cannot
 * be reached (network, timeout, 5xx) is `ProviderError` unreachable; one that answers outside
 * the protocol (discovery of another shape) a malformed answer; the provider's own refusals of
 * this login are `OidcError`s.
 */
export function createOidcRelyingParty(settings: OidcClientSettings, options: { clock?: Clock } = {}): OidcRelyingParty {
  const clock = options.clock ?? systemClock;
  let discovered: { at: number; config: Promise<oidc.Configuration> } | undefined;

  function configFor(): Promise<oidc.Configuration> {
    if (discovered && clock.now().getTime() - discovered.at < DISCOVERY_TTL_MS) return discovered.config;
    const issuer = new URL(settings.issuer);
    const execute = [oidc.enableNonRepudiationChecks];
    if (issuer.protocol === 'http:' && isLoopbackHost(issuer.hostname)) execute.push(oidc.allowInsecureRequests);
    const config = oidc.discovery(issuer, settings.clientId, settings.clientSecret, undefined, { execute, timeout: TIMEOUT_SECONDS }).catch((error: unknown) => {
      discovered = undefined;
      throw providerFailure(`OpenID discovery of ${settings.issuer} failed`, error);
    });
    discovered = { at: clock.now().getTime(), config };
    return config;
  }

  return {
    async newPkce() {
      const verifier = oidc.randomPKCECodeVerifier();
      return { verifier, challenge: await oidc.calculatePKCECodeChallenge(verifier) };
    },

    newNonce: () => oidc.randomNonce(),

    async authorizationUrl(request) {
      const config = await configFor();
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

    async complete(checks) {
      const config = await configFor();
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

/** A network failure, a timeout or a 5xx: the provider cannot be used now. */
function unreachable(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current; depth++) {
    if (current instanceof TypeError && /fetch failed/i.test(current.message)) return true;
    const name = (current as { name?: unknown }).name;
    if (name === 'TimeoutError' || name === 'AbortError') return true;
    const status = (current as { status?: unknown }).status;
    if (typeof status === 'number' && status >= 500) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

function providerFailure(what: string, error: unknown): ProviderError {
  return new ProviderError(unreachable(error) ? 'unreachable' : 'malformed_answer', `${what}: ${describe(error)}`);
}

function classify(error: unknown): OidcError | ProviderError {
  if (error instanceof OidcError || error instanceof ProviderError) return error;
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
  return providerFailure('the provider could not be used', error);
}
