import type { Logger } from 'pino';
import type { Clock } from '../../../platform/clock.js';
import { newId } from '../../../platform/clock.js';
import type { RunInTx } from '../../../platform/db/tx.js';
import { isUniqueViolation } from '../../../platform/db/pg-errors.js';
import { randomToken, sha256Hex } from '../../../platform/crypto/hash.js';
import type { SecretBox } from '../../../platform/crypto/secrets.js';
import { AppError } from '../../../platform/http/errors.js';
import type { TenantContext } from '../../../platform/http/guards.js';
import { ProviderError } from '../../../platform/providers/errors.js';
import type { Providers } from '../../../platform/providers/service.js';
import { OidcError, type IdpClient, type OidcIdentity } from '../../../providers/idp/port.js';
import { isValidEmail, type UsersService } from '../../users/service.js';
import type { UserRow } from '../../users/table.js';
import type { AuthRepo } from '../repo.js';
import type { SecondFactorStarter } from '../service.js';
import type { SecurityEventSink, SessionMeta, SessionService } from '../sessions.js';
import { IDP_KIND } from './config.js';
import { IdpErrors, IdpLoginError } from './errors.js';
import { matchRedirect } from '../../../platform/http/redirect-allow.js';
import type { IdpRepo } from './repo.js';
import type { IdpLoginStateRow } from './table.js';

/** How long an authorization request may take, from GET /auth/idp to the callback. */
export const IDP_STATE_TTL_MS = 10 * 60_000;
/** Expired states are kept this long, so a late replay is told "expired", then purged. */
const STATE_RETENTION_MS = 24 * 60 * 60_000;
export const STATE_PATTERN = '^[A-Za-z0-9_-]{43}$';

export interface IdpStart {
  authorizationUrl: string;
  expiresAt: string;
}

/** Where the callback sends the browser: the client's URL with the outcome in the fragment. */
export interface IdpCallbackResult {
  location: string;
}

export interface IdpCallbackInput {
  state: string;
  /** The raw query string the provider sent (the library validates it as a whole). */
  rawQuery: string;
  /** An x-tenant-id header, when the client sent one: it must name the state's tenant. */
  tenantHeader?: string;
  meta: SessionMeta;
}

const PROVIDER_ERROR_RE = /^[a-z_]{1,64}$/;

function fragmentUrl(base: string, values: Record<string, string>): string {
  return `${base}#${new URLSearchParams(values).toString()}`;
}

/**
 * Login through the tenant's external OpenID provider (authorization-code flow with PKCE S256,
 * nonce and a single-use state). The user is found by (issuer, subject); an existing account
 * with the same email is linked only when the provider asserts the email is verified.
 */
export function createIdpLoginService(deps: {
  repo: IdpRepo;
  authRepo: AuthRepo;
  tx: RunInTx;
  clock: Clock;
  secrets: SecretBox;
  /** The platform's providers: the tenant's IdP (503 PROVIDER_NOT_CONFIGURED without one). */
  providers: Pick<Providers, 'port'>;
  users: UsersService;
  sessions: SessionService;
  record: SecurityEventSink;
  startSecondFactor?: SecondFactorStarter;
  callbackUrl: () => string;
  logger: Logger;
}) {
  const { repo, authRepo, tx, clock, secrets, users, sessions, record, callbackUrl, logger } = deps;
  const idpOf = (tenantId: string): Promise<IdpClient> => deps.providers.port(tenantId, IDP_KIND);
  const verifierContext = (row: Pick<IdpLoginStateRow, 'tenantId' | 'id'>) => `idp-state:${row.tenantId}:${row.id}`;

  /** Finds the state row and marks it used, or says why it cannot be used. */
  async function consumeState(state: string, tenantHeader: string | undefined): Promise<IdpLoginStateRow> {
    const row = await repo.findStateByHash(sha256Hex(state));
    if (!row) throw IdpErrors.stateInvalid('unknown');
    if (tenantHeader !== undefined && tenantHeader.toLowerCase() !== row.tenantId) throw IdpErrors.stateInvalid('tenant');
    if (row.consumedAt) throw IdpErrors.stateInvalid('used');
    const now = clock.now();
    if (row.expiresAt.getTime() <= now.getTime()) throw IdpErrors.stateInvalid('expired');
    if (!(await repo.consumeState(row.tenantId, row.id, now))) throw IdpErrors.stateInvalid('used');
    return row;
  }

  /** The account of this identity: linked before, linked now by verified email, or new. */
  async function resolveUser(tenantId: string, identity: OidcIdentity): Promise<{ user: UserRow; created: boolean }> {
    const { issuer, subject } = identity;
    return tx(async (db) => {
      const now = clock.now();
      const linked = await repo.findIdentity(tenantId, issuer, subject, db);
      if (linked) {
        const user = await users.findRow(tenantId, linked.userId, db);
        if (!user) throw new IdpLoginError('account_unavailable', 'The account linked to this identity no longer exists');
        await repo.touchIdentity(tenantId, issuer, subject, now, db);
        return { user, created: false };
      }
      const email = identity.email?.trim();
      if (!email || !isValidEmail(email)) {
        throw new IdpLoginError('email_required', 'The identity provider did not share a usable email address');
      }
      const link = async (user: UserRow) =>
        repo.insertIdentity({ tenantId, issuer, subject, userId: user.id, email, createdAt: now, lastLoginAt: now }, db);
      const existing = await users.findRowByEmail(tenantId, email, db);
      if (existing) {
        if (!identity.emailVerified) {
          throw new IdpLoginError(
            'email_not_verified',
            'An account with this email exists; the identity provider does not assert that the email is verified, so it cannot be linked. Sign in with your password instead.',
          );
        }
        await link(existing);
        const user = await users.markEmailVerified(tenantId, existing, db);
        await record(db, tenantId, { type: 'idp.linked', userId: user.id, details: { issuer } });
        return { user, created: false };
      }
      const created = await users.createUser(tenantId, { email, fullName: identity.name }, db);
      const user = identity.emailVerified ? await users.markEmailVerified(tenantId, created, db) : created;
      await link(user);
      await record(db, tenantId, { type: 'user.registered', userId: user.id, details: { method: 'idp', issuer } });
      return { user, created: true };
    });
  }

  /** Two callbacks of the same new person may race to create the account: the loser retries once and finds it. */
  async function resolveUserOnce(tenantId: string, identity: OidcIdentity) {
    try {
      return await resolveUser(tenantId, identity);
    } catch (error) {
      const raced =
        isUniqueViolation(error, 'user_identities_pkey') || (error instanceof AppError && error.code === 'USER_EMAIL_TAKEN');
      if (!raced) throw error;
      return resolveUser(tenantId, identity);
    }
  }

  async function completeLogin(row: IdpLoginStateRow, idp: IdpClient, input: IdpCallbackInput): Promise<Record<string, string>> {
    // The provider changed since the request: the code was issued by another issuer.
    if (idp.issuer !== row.issuer) throw new IdpLoginError('invalid_id_token', 'The identity provider of the tenant changed during the login');
    const currentUrl = new URL(callbackUrl());
    currentUrl.search = input.rawQuery;
    let identity: OidcIdentity;
    try {
      identity = await idp.complete({
        currentUrl,
        state: input.state,
        nonce: row.nonce,
        codeVerifier: await secrets.decrypt(row.codeVerifierSealed, verifierContext(row)),
      });
    } catch (error) {
      if (error instanceof ProviderError && error.reason !== 'not_configured') {
        logger.warn({ tenantId: row.tenantId, reason: error.reason, detail: error.message }, 'idp login failed at the provider');
        throw new IdpLoginError('temporarily_unavailable', 'The identity provider cannot be reached; retry later');
      }
      if (!(error instanceof OidcError)) throw error;
      logger.warn({ tenantId: row.tenantId, failure: error.failure, reason: error.message }, 'idp login failed at the provider');
      if (error.failure === 'provider_error') {
        const code = error.providerError && PROVIDER_ERROR_RE.test(error.providerError) ? error.providerError : 'server_error';
        throw new IdpLoginError(code, 'The identity provider did not authorize the login');
      }
      if (error.failure === 'token_exchange_failed') throw new IdpLoginError('token_exchange_failed', 'The identity provider refused the authorization code');
      throw new IdpLoginError('invalid_id_token', 'The identity provider returned an ID token that failed validation');
    }
    const { user, created } = await resolveUserOnce(row.tenantId, identity);
    const credential = await authRepo.findCredential(row.tenantId, user.id);
    if (credential?.twoFactorMethod && deps.startSecondFactor) {
      await record(undefined, row.tenantId, { type: 'login.second_factor_required', userId: user.id, details: { method: 'idp' } });
      const challenge = await deps.startSecondFactor(row.tenantId, user);
      return { twoFactorRequired: 'true', challengeToken: challenge.challengeToken };
    }
    const pair = await sessions.start(row.tenantId, user.id, user.role, input.meta, {
      alsoWrite: [record.statement(row.tenantId, { type: 'login.succeeded', userId: user.id, details: { method: 'idp', issuer: identity.issuer, created } })],
    });
    return {
      accessToken: pair.accessToken,
      refreshToken: pair.refreshToken,
      tokenType: pair.tokenType,
      expiresIn: String(pair.expiresIn),
      accessTokenExpiresAt: pair.accessTokenExpiresAt,
      refreshTokenExpiresAt: pair.refreshTokenExpiresAt,
    };
  }

  return {
    /** Issues the authorization request: a URL of the provider carrying PKCE, nonce and state. */
    async start(tenant: TenantContext, redirectUrl: string): Promise<IdpStart> {
      const idp = await idpOf(tenant.id);
      const target = matchRedirect(redirectUrl, idp.redirectAllow);
      if (!target) throw IdpErrors.redirectNotAllowed();
      const pkce = await idp.newPkce();
      const nonce = idp.newNonce();
      const state = randomToken(32);
      const now = clock.now();
      const expiresAt = new Date(now.getTime() + IDP_STATE_TTL_MS);
      // Built before anything is stored: an unreachable provider leaves no row behind (its
      // ProviderError answers: 503 unreachable, 502 IDP_UNAVAILABLE for a discovery of another shape).
      const authorizationUrl = await idp.authorizationUrl({ redirectUri: callbackUrl(), state, nonce, codeChallenge: pkce.challenge }).catch((error: unknown) => {
        logger.warn({ tenantId: tenant.id, reason: error instanceof Error ? error.message : String(error) }, 'idp discovery failed');
        throw error;
      });
      const id = newId();
      await repo.insertState({
        id,
        tenantId: tenant.id,
        stateHash: sha256Hex(state),
        issuer: idp.issuer,
        redirectUrl: target,
        nonce,
        codeVerifierSealed: secrets.encrypt(pkce.verifier, verifierContext({ tenantId: tenant.id, id })),
        createdAt: now,
        expiresAt,
      });
      await repo.purgeStates(tenant.id, new Date(now.getTime() - STATE_RETENTION_MS));
      return { authorizationUrl, expiresAt: expiresAt.toISOString() };
    },

    /**
     * Completes a login. An unusable state is a 400 (there is no trusted place to send the
     * browser); past that, every outcome is a redirect to the client URL bound to the state,
     * with the token pair, a 2FA challenge or `error` in the fragment.
     */
    async callback(input: IdpCallbackInput): Promise<IdpCallbackResult> {
      const row = await consumeState(input.state, input.tenantHeader);
      const idp = await idpOf(row.tenantId);
      // The allow-list may have shrunk since the request: never send tokens to a URL no longer trusted.
      if (!matchRedirect(row.redirectUrl, idp.redirectAllow)) throw IdpErrors.redirectNotAllowed();
      try {
        return { location: fragmentUrl(row.redirectUrl, await completeLogin(row, idp, input)) };
      } catch (error) {
        if (!(error instanceof IdpLoginError)) throw error;
        await record(undefined, row.tenantId, { type: 'login.failed', actor: { type: 'anonymous' }, details: { method: 'idp', reason: error.error } });
        return { location: fragmentUrl(row.redirectUrl, { error: error.error, error_description: error.description }) };
      }
    },
  };
}

export type IdpLoginService = ReturnType<typeof createIdpLoginService>;
