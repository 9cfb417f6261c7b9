import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import type { Clock } from '../../platform/clock.js';
import { newId } from '../../platform/clock.js';
import type { SecretBox } from '../../platform/crypto/secrets.js';
import type { Db } from '../../platform/db/client.js';
import { createKeysRepo } from './keys-repo.js';
import type { SigningKeyRow } from './table.js';

/** A retired key stays published this long: token lifetime plus the reload interval and a margin. */
const PUBLISH_AFTER_RETIRE_MS = 20 * 60_000;
const RELOAD_INTERVAL_MS = 60_000;

export interface PublicJwk {
  kty: string;
  crv: string;
  x: string;
  kid: string;
  alg: 'EdDSA';
  use: 'sig';
}

interface LoadedKey {
  kid: string;
  publicKey: KeyObject;
  privateKey?: KeyObject;
  jwk: PublicJwk;
  createdAt: Date;
  retiredAt: Date | null;
}

function newKeyPair(): { kid: string; publicJwk: PublicJwk; privatePem: string } {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const kid = newId();
  const jwk = publicKey.export({ format: 'jwk' }) as { kty: string; crv: string; x: string };
  return {
    kid,
    publicJwk: { kty: jwk.kty, crv: jwk.crv, x: jwk.x, kid, alg: 'EdDSA', use: 'sig' },
    privatePem: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
  };
}

/**
 * The Ed25519 signing keys: the newest unretired key signs; every key not retired for longer
 * than a token's lifetime verifies and is published in the JWKS.
 */
export function createKeyRing(deps: { db: Db; secrets: SecretBox; clock: Clock }) {
  const { secrets, clock } = deps;
  const repo = createKeysRepo(deps.db);
  let keys = new Map<string, LoadedKey>();
  let lastReload = 0;
  let timer: NodeJS.Timeout | undefined;

  async function toLoaded(row: SigningKeyRow, withPrivate: boolean): Promise<LoadedKey> {
    const jwk = row.publicJwk as unknown as PublicJwk;
    return {
      kid: row.kid,
      publicKey: createPublicKey({ key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x }, format: 'jwk' }),
      privateKey: withPrivate
        ? createPrivateKey(await secrets.decrypt(row.privateKeySealed, `signing-key:${row.kid}`))
        : undefined,
      jwk,
      createdAt: row.createdAt,
      retiredAt: row.retiredAt,
    };
  }

  async function reload(): Promise<void> {
    const rows = await repo.listNewestFirst();
    const next = new Map<string, LoadedKey>();
    for (const row of rows) {
      const known = keys.get(row.kid);
      next.set(row.kid, known && known.privateKey ? { ...known, retiredAt: row.retiredAt } : await toLoaded(row, !row.retiredAt));
    }
    keys = next;
    lastReload = clock.now().getTime();
  }

  async function insertKey(): Promise<string> {
    const pair = newKeyPair();
    await repo.insert({
      kid: pair.kid,
      publicJwk: pair.publicJwk as unknown as Record<string, string>,
      privateKeySealed: secrets.encrypt(pair.privatePem, `signing-key:${pair.kid}`),
      createdAt: clock.now(),
    });
    return pair.kid;
  }

  function published(key: LoadedKey): boolean {
    return !key.retiredAt || clock.now().getTime() - key.retiredAt.getTime() < PUBLISH_AFTER_RETIRE_MS;
  }

  return {
    /** Loads the keys, creating the first one on a fresh database; reloads periodically. */
    async init(): Promise<void> {
      await reload();
      if (![...keys.values()].some((k) => !k.retiredAt)) {
        await insertKey();
        await reload();
      }
      timer = setInterval(() => void reload().catch(() => undefined), RELOAD_INTERVAL_MS);
      timer.unref();
    },

    stop(): void {
      if (timer) clearInterval(timer);
    },

    /** The newest unretired key with its private half. */
    signingKey(): { kid: string; privateKey: KeyObject } {
      const active = [...keys.values()]
        .filter((k) => !k.retiredAt && k.privateKey)
        .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.kid < b.kid ? 1 : -1))[0];
      if (!active?.privateKey) throw new Error('no signing key loaded');
      return { kid: active.kid, privateKey: active.privateKey };
    },

    /** The public key for a kid, reloading (at most every 5 s) when the kid is new to this instance. */
    async publicKey(kid: string): Promise<KeyObject | undefined> {
      let key = keys.get(kid);
      if (!key && clock.now().getTime() - lastReload > 5_000) {
        await reload();
        key = keys.get(kid);
      }
      return key && published(key) ? key.publicKey : undefined;
    },

    /** Synchronous lookup for the hot path; undefined sends the caller to publicKey(). */
    cachedPublicKey(kid: string): KeyObject | undefined {
      const key = keys.get(kid);
      return key && published(key) ? key.publicKey : undefined;
    },

    jwks(): { keys: PublicJwk[] } {
      return { keys: [...keys.values()].filter(published).map((k) => k.jwk) };
    },

    /** Adds a new signing key and retires the previous ones (they keep verifying until their tokens expire). */
    async rotate(): Promise<{ kid: string; retired: string[] }> {
      const kid = await insertKey();
      const retired = await repo.retireAllBut(kid, clock.now());
      await reload();
      return { kid, retired };
    },
  };
}

export type KeyRing = ReturnType<typeof createKeyRing>;
