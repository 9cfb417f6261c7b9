import { randomUUID } from 'node:crypto';
import { errors as joseErrors, jwtVerify, SignJWT, type JWTHeaderParameters } from 'jose';
import type { Clock } from '../../platform/clock.js';
import type { AccessClaims, Role } from '../../platform/http/guards.js';
import type { KeyRing } from './keys.js';

export const ACCESS_TOKEN_TTL_SEC = 15 * 60;
export const TOKEN_AUDIENCE = 'bastion';
const TOKEN_TYPE = 'at+jwt';
const CACHE_MAX = 20_000;

export interface SignedAccessToken {
  token: string;
  expiresAt: Date;
}

/**
 * Access tokens: EdDSA (Ed25519) JWTs with kid, 15 minutes. Only EdDSA with a key of our own
 * key ring verifies: `alg: none`, HS256, foreign keys and embedded jku/x5u/jwk headers are
 * never honoured. Verified tokens are cached until their expiry (hot path).
 */
export function createTokenService(deps: { keys: KeyRing; clock: Clock; issuer: string }) {
  const { keys, clock, issuer } = deps;
  const cache = new Map<string, { claims: AccessClaims; exp: number }>();

  function remember(token: string, claims: AccessClaims, exp: number): void {
    if (cache.size >= CACHE_MAX) {
      // Drop the oldest quarter (Map keeps insertion order).
      let drop = CACHE_MAX / 4;
      for (const key of cache.keys()) {
        cache.delete(key);
        if (--drop <= 0) break;
      }
    }
    cache.set(token, { claims, exp });
  }

  return {
    async sign(claims: AccessClaims): Promise<SignedAccessToken> {
      const { kid, privateKey } = keys.signingKey();
      const now = Math.floor(clock.now().getTime() / 1000);
      const exp = now + ACCESS_TOKEN_TTL_SEC;
      const token = await new SignJWT({ tid: claims.tid, sid: claims.sid, role: claims.role })
        .setProtectedHeader({ alg: 'EdDSA', kid, typ: TOKEN_TYPE })
        .setSubject(claims.sub)
        .setIssuer(issuer)
        .setAudience(TOKEN_AUDIENCE)
        .setIssuedAt(now)
        .setNotBefore(now)
        .setExpirationTime(exp)
        .setJti(randomUUID())
        .sign(privateKey);
      return { token, expiresAt: new Date(exp * 1000) };
    },

    /** The claims of a valid access token, or undefined. Never throws for a bad token. */
    async verify(token: string): Promise<AccessClaims | undefined> {
      const nowSec = clock.now().getTime() / 1000;
      const hit = cache.get(token);
      if (hit) {
        if (hit.exp > nowSec) return hit.claims;
        cache.delete(token);
        return undefined;
      }
      try {
        const { payload } = await jwtVerify(
          token,
          async (header: JWTHeaderParameters) => {
            const key = header.kid ? await keys.publicKey(header.kid) : undefined;
            if (!key) throw new joseErrors.JWKSNoMatchingKey();
            return key;
          },
          {
            algorithms: ['EdDSA'],
            issuer,
            audience: TOKEN_AUDIENCE,
            typ: TOKEN_TYPE,
            currentDate: clock.now(),
            requiredClaims: ['sub', 'exp', 'iat', 'tid', 'sid', 'role'],
            clockTolerance: 0,
          },
        );
        const { sub, tid, sid, role, exp } = payload as { sub: unknown; tid: unknown; sid: unknown; role: unknown; exp: number };
        if (typeof sub !== 'string' || typeof tid !== 'string' || typeof sid !== 'string') return undefined;
        if (role !== 'user' && role !== 'admin') return undefined;
        const claims: AccessClaims = { sub, tid, sid, role: role as Role };
        remember(token, claims, exp);
        return claims;
      } catch {
        return undefined;
      }
    },

    /** Forget cached verifications of a session (logout, revocation) on this instance. */
    forgetSession(sid: string): void {
      for (const [token, entry] of cache) if (entry.claims.sid === sid) cache.delete(token);
    },
  };
}

export type TokenService = ReturnType<typeof createTokenService>;
