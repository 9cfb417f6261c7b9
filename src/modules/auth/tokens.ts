import { randomUUID, sign as cryptoSign } from 'node:crypto';
import { errors as joseErrors, jwtVerify, type JWTHeaderParameters } from 'jose';
import type { Clock } from '../../platform/clock.js';
import type { AccessClaims, Role } from '../../platform/http/guards.js';
import type { KeyRing } from './keys.js';

export const ACCESS_TOKEN_TTL_SEC = 15 * 60;
export const TOKEN_AUDIENCE = 'bastion';
const TOKEN_TYPE = 'at+jwt';
const CACHE_MAX = 20_000;

const base64url = (text: string) => Buffer.from(text).toString('base64url');

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
    /**
     * Signs with node:crypto directly (Ed25519 is deterministic and one call): jose's SignJWT
     * went through WebCrypto's async job queue and cost several times as much per login. The
     * output is a standard compact JWS, verified by jose here and by any sibling's library.
     */
    async sign(claims: AccessClaims): Promise<SignedAccessToken> {
      const { kid, privateKey } = keys.signingKey();
      const now = Math.floor(clock.now().getTime() / 1000);
      const exp = now + ACCESS_TOKEN_TTL_SEC;
      const header = { alg: 'EdDSA', kid, typ: TOKEN_TYPE };
      const payload = {
        tid: claims.tid,
        sid: claims.sid,
        role: claims.role,
        sub: claims.sub,
        ...(claims.act ? { act: { sub: claims.act.sub } } : {}),
        iss: issuer,
        aud: TOKEN_AUDIENCE,
        iat: now,
        nbf: now,
        exp,
        jti: randomUUID(),
      };
      const signingInput = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(payload))}`;
      const signature = cryptoSign(null, Buffer.from(signingInput), privateKey).toString('base64url');
      return { token: `${signingInput}.${signature}`, expiresAt: new Date(exp * 1000) };
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
        const { sub, tid, sid, role, exp, act } = payload as { sub: unknown; tid: unknown; sid: unknown; role: unknown; exp: number; act?: unknown };
        if (typeof sub !== 'string' || typeof tid !== 'string' || typeof sid !== 'string') return undefined;
        if (role !== 'user' && role !== 'admin') return undefined;
        // `act` (RFC 8693): who obtained the token for the subject; only its `sub` is read.
        let actor: AccessClaims['act'];
        if (act !== undefined) {
          const actSub = (act as { sub?: unknown } | null)?.sub;
          if (typeof actSub !== 'string') return undefined;
          actor = { sub: actSub };
        }
        const claims: AccessClaims = { sub, tid, sid, role: role as Role, ...(actor ? { act: actor } : {}) };
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
