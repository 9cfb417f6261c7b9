import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { Logger } from 'pino';
import type { Clock } from '../../../platform/clock.js';
import { newId } from '../../../platform/clock.js';
import { sha256Hex } from '../../../platform/crypto/hash.js';
import { isUniqueViolation } from '../../../platform/db/pg-errors.js';
import type { TenantContext } from '../../../platform/http/guards.js';
import type { UsersService } from '../../users/service.js';
import { AuthErrors } from '../errors.js';
import type { SecurityEventSink, SessionMeta, SessionService, TokenPair } from '../sessions.js';
import type { PasskeyRepo } from './repo.js';
import type { PasskeyChallengeRow, PasskeyRow } from './table.js';

/** How long a begun registration or login may take (the browser's own timeout is the same). */
export const PASSKEY_CHALLENGE_TTL_MS = 5 * 60_000;
/** Expired challenges are removed this long after they expire. */
const CHALLENGE_RETENTION_MS = 60 * 60_000;
export const MAX_PASSKEYS_PER_USER = 20;
export const DEFAULT_PASSKEY_NAME = 'Passkey';

/** A passkey as the API lists it. */
export interface PasskeyView {
  id: string;
  name: string;
  deviceType: 'singleDevice' | 'multiDevice';
  backedUp: boolean;
  transports: string[];
  aaguid: string | null;
  createdAt: string;
  lastUsedAt: string | null;
}

export function passkeyView(row: PasskeyRow): PasskeyView {
  return {
    id: row.id,
    name: row.name,
    deviceType: row.deviceType,
    backedUp: row.backedUp,
    transports: row.transports,
    aaguid: row.aaguid,
    createdAt: row.createdAt.toISOString(),
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
  };
}

/**
 * The relying party of a tenant: the host of its app URL (tenant settings `appUrl`), where its
 * users' browsers run; without one, the host of Bastion's public base URL. The origin a
 * response must come from is that URL's origin.
 */
export function relyingParty(tenant: TenantContext, publicBaseUrl: string): { rpId: string; origin: string } {
  const appUrl = typeof tenant.settings.appUrl === 'string' ? tenant.settings.appUrl : undefined;
  for (const candidate of [appUrl, publicBaseUrl]) {
    if (!candidate) continue;
    try {
      const url = new URL(candidate);
      return { rpId: url.hostname, origin: url.origin };
    } catch {
      // An unparsable URL: try the next.
    }
  }
  throw new Error('no relying party: neither the app URL nor the public base URL parses');
}

/** The challenge a response signed (its clientDataJSON), or undefined when it is not readable. */
function challengeOf(clientDataJSON: string): string | undefined {
  try {
    const data = JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8')) as { challenge?: unknown };
    return typeof data.challenge === 'string' && data.challenge.length > 0 && data.challenge.length <= 256 ? data.challenge : undefined;
  } catch {
    return undefined;
  }
}

const challengeHash = (challenge: string) => sha256Hex(`passkey-challenge:${challenge}`);

/** The WebAuthn user handle of a user: the 16 bytes of its UUID (no personal data). */
const userHandle = (userId: string) => Buffer.from(userId.replace(/-/g, ''), 'hex');

/**
 * Passkeys (WebAuthn, discoverable credentials): a signed-in user registers several, named;
 * a login needs no email or password. Each begin stores a single-use challenge bound to the
 * tenant (and, for a registration, to the user), with the relying party and origin in force
 * then; each finish claims it before verifying, so a failed finish also spends it. A passkey
 * login answers the token pair directly (it is itself two factors: the device and the user's
 * verification on it), also for users with email 2FA on.
 */
export function createPasskeyService(deps: {
  repo: PasskeyRepo;
  clock: Clock;
  users: UsersService;
  sessions: SessionService;
  record: SecurityEventSink;
  publicBaseUrl: () => string;
  logger: Logger;
}) {
  const { repo, clock, users, sessions, record, logger } = deps;

  async function newChallenge(tenant: TenantContext, purpose: PasskeyChallengeRow['purpose'], challenge: string, rp: { rpId: string; origin: string }, extra: { userId?: string; name?: string } = {}) {
    const now = clock.now();
    const expiresAt = new Date(now.getTime() + PASSKEY_CHALLENGE_TTL_MS);
    await repo.purgeChallenges(tenant.id, new Date(now.getTime() - CHALLENGE_RETENTION_MS));
    await repo.insertChallenge({
      tenantId: tenant.id,
      id: newId(),
      purpose,
      challenge,
      challengeHash: challengeHash(challenge),
      userId: extra.userId ?? null,
      name: extra.name ?? null,
      rpId: rp.rpId,
      origin: rp.origin,
      createdAt: now,
      expiresAt,
    });
    return expiresAt.toISOString();
  }

  /** Claims the live challenge the response signed; the 400 when there is none. */
  async function claim(tenantId: string, purpose: PasskeyChallengeRow['purpose'], clientDataJSON: string): Promise<PasskeyChallengeRow> {
    const challenge = challengeOf(clientDataJSON);
    const row = challenge ? await repo.consumeChallenge(tenantId, purpose, challengeHash(challenge), clock.now()) : undefined;
    if (!row) throw AuthErrors.passkeyChallenge();
    return row;
  }

  return {
    async list(tenantId: string, userId: string): Promise<PasskeyView[]> {
      return (await repo.listForUser(tenantId, userId)).map(passkeyView);
    },

    /** Registration options for the signed-in user; its passkeys are excluded (no second registration of one authenticator). */
    async beginRegistration(tenant: TenantContext, userId: string, name?: string): Promise<{ options: PublicKeyCredentialCreationOptionsJSON; expiresAt: string }> {
      const user = await users.findRow(tenant.id, userId);
      if (!user) throw AuthErrors.userNotFound();
      const existing = await repo.listForUser(tenant.id, userId);
      if (existing.length >= MAX_PASSKEYS_PER_USER) throw AuthErrors.passkeyLimit(MAX_PASSKEYS_PER_USER);
      const rp = relyingParty(tenant, deps.publicBaseUrl());
      const options = await generateRegistrationOptions({
        rpName: tenant.name,
        rpID: rp.rpId,
        userName: user.email,
        userID: userHandle(user.id),
        userDisplayName: user.fullName ?? user.email,
        timeout: PASSKEY_CHALLENGE_TTL_MS,
        attestationType: 'none',
        excludeCredentials: existing.map((p) => ({ id: p.credentialId, transports: p.transports })),
        authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: 'required' },
      });
      const expiresAt = await newChallenge(tenant, 'registration', options.challenge, rp, { userId, name: name?.trim() || undefined });
      return { options, expiresAt };
    },

    /** Verifies the browser's registration against the caller's challenge and stores the passkey. */
    async finishRegistration(tenant: TenantContext, userId: string, response: RegistrationResponseJSON, name?: string): Promise<PasskeyView> {
      const challenge = await claim(tenant.id, 'registration', response.response.clientDataJSON);
      // A challenge another user began (or that this user did not begin) is no challenge of theirs.
      if (challenge.userId !== userId) throw AuthErrors.passkeyChallenge();
      let verified;
      try {
        verified = await verifyRegistrationResponse({
          response,
          expectedChallenge: challenge.challenge,
          expectedOrigin: challenge.origin,
          expectedRPID: challenge.rpId,
          requireUserVerification: true,
        });
      } catch (err) {
        throw AuthErrors.passkeyVerification(err instanceof Error ? err.message : 'unreadable response');
      }
      if (!verified.verified) throw AuthErrors.passkeyVerification('not verified');
      const info = verified.registrationInfo;
      if ((await repo.countForUser(tenant.id, userId)) >= MAX_PASSKEYS_PER_USER) throw AuthErrors.passkeyLimit(MAX_PASSKEYS_PER_USER);
      const row: PasskeyRow = {
        tenantId: tenant.id,
        id: newId(),
        userId,
        name: name?.trim() || challenge.name || DEFAULT_PASSKEY_NAME,
        credentialId: info.credential.id,
        publicKey: Buffer.from(info.credential.publicKey).toString('base64url'),
        counter: info.credential.counter,
        transports: (response.response.transports ?? []).slice(0, 8),
        deviceType: info.credentialDeviceType,
        backedUp: info.credentialBackedUp,
        aaguid: info.aaguid,
        rpId: challenge.rpId,
        createdAt: clock.now(),
        lastUsedAt: null,
      };
      try {
        await repo.insert(row);
      } catch (err) {
        if (isUniqueViolation(err, 'passkeys_credential_unique')) throw AuthErrors.passkeyTaken();
        throw err;
      }
      await record(undefined, tenant.id, { type: 'passkey.registered', userId, details: { passkeyId: row.id, name: row.name, deviceType: row.deviceType, backedUp: row.backedUp } });
      return passkeyView(row);
    },

    async remove(tenantId: string, userId: string, passkeyId: string): Promise<void> {
      const row = await repo.remove(tenantId, userId, passkeyId);
      if (!row) throw AuthErrors.passkeyNotFound();
      await record(undefined, tenantId, { type: 'passkey.removed', userId, details: { passkeyId: row.id, name: row.name } });
    },

    /** Login options: no credentials listed (discoverable credentials: the authenticator offers the user's). */
    async beginLogin(tenant: TenantContext): Promise<{ options: PublicKeyCredentialRequestOptionsJSON; expiresAt: string }> {
      const rp = relyingParty(tenant, deps.publicBaseUrl());
      const options = await generateAuthenticationOptions({ rpID: rp.rpId, userVerification: 'required', timeout: PASSKEY_CHALLENGE_TTL_MS });
      const expiresAt = await newChallenge(tenant, 'authentication', options.challenge, rp);
      return { options, expiresAt };
    },

    /**
     * Verifies an assertion against a live login challenge of the tenant and the passkey its
     * credential id names; answers the token pair. A counter that did not advance (when the
     * authenticator counts) is refused as a possible clone.
     */
    async finishLogin(tenant: TenantContext, response: AuthenticationResponseJSON, meta: SessionMeta): Promise<TokenPair> {
      const challenge = await claim(tenant.id, 'authentication', response.response.clientDataJSON);
      const refuse = async (reason: string, userId?: string) => {
        await record(undefined, tenant.id, { type: 'login.failed', userId, actor: { type: 'anonymous' }, details: { method: 'passkey', reason } });
        return AuthErrors.passkeyLogin();
      };
      const passkey = await repo.findByCredentialId(tenant.id, response.id);
      if (!passkey) throw await refuse('unknown_passkey');
      // The user handle, when the authenticator returns it, must name the passkey's user.
      if (response.response.userHandle !== undefined && response.response.userHandle !== userHandle(passkey.userId).toString('base64url')) {
        throw await refuse('user_handle_mismatch', passkey.userId);
      }
      let verified;
      try {
        verified = await verifyAuthenticationResponse({
          response,
          expectedChallenge: challenge.challenge,
          expectedOrigin: challenge.origin,
          expectedRPID: challenge.rpId,
          requireUserVerification: true,
          credential: {
            id: passkey.credentialId,
            publicKey: new Uint8Array(Buffer.from(passkey.publicKey, 'base64url')),
            counter: passkey.counter,
            transports: passkey.transports,
          },
        });
      } catch (err) {
        const message = err instanceof Error ? err.message : '';
        if (/counter value/i.test(message)) {
          await record(undefined, tenant.id, { type: 'passkey.clone_suspected', userId: passkey.userId, actor: { type: 'anonymous' }, details: { passkeyId: passkey.id, storedCounter: passkey.counter } });
          throw await refuse('counter_not_advanced', passkey.userId);
        }
        logger.debug({ err: message }, 'passkey assertion refused');
        throw await refuse('assertion_invalid', passkey.userId);
      }
      if (!verified.verified) throw await refuse('assertion_invalid', passkey.userId);
      const info = verified.authenticationInfo;
      const stored = await repo.recordUse(tenant.id, passkey.id, passkey.counter, {
        counter: info.newCounter,
        backedUp: info.credentialBackedUp,
        deviceType: info.credentialDeviceType,
        at: clock.now(),
      });
      // A concurrent login moved the counter first: this one is the replay or the clone.
      if (!stored) throw await refuse('counter_not_advanced', passkey.userId);
      const user = await users.findRow(tenant.id, passkey.userId);
      if (!user) throw await refuse('user_gone', passkey.userId);
      return sessions.start(tenant.id, user.id, user.role, meta, {
        alsoWrite: [record.statement(tenant.id, { type: 'login.succeeded', userId: user.id, details: { method: 'passkey', passkeyId: passkey.id } })],
      });
    },
  };
}

export type PasskeyService = ReturnType<typeof createPasskeyService>;
