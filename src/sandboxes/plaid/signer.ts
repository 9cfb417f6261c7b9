import { createHash, randomBytes } from 'node:crypto';
import { exportJWK, generateKeyPair, importJWK, SignJWT, type JWK } from 'jose';
import type { Clock } from '../../platform/clock.js';
import type { SecretBox } from '../../platform/crypto/secrets.js';
import type { WebhookKey } from '../../providers/bank-link/port.js';
import type { SandboxStore } from './store.js';

type SigningKey = Awaited<ReturnType<typeof importJWK>>;

const SEAL_CONTEXT = 'bank-link-sandbox:webhook-key';

/**
 * The sandbox's webhook signing: an ES256 key pair made once and kept in the database (the
 * private half sealed), a JWT per webhook with `iat` and the body's SHA-256, and the public
 * key served by /webhook_verification_key/get.
 */
export function createWebhookSigner(deps: { store: SandboxStore; secrets: SecretBox; clock: Clock }) {
  const { store, secrets, clock } = deps;
  let signing: { kid: string; key: SigningKey } | undefined;

  async function ensureKey(): Promise<{ kid: string; key: SigningKey }> {
    if (signing) return signing;
    let row = await store.currentKey();
    if (!row) {
      const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
      const kid = randomBytes(16).toString('hex');
      const publicJwk = (await exportJWK(publicKey)) as Record<string, string>;
      const privateJwk = await exportJWK(privateKey);
      await store.insertKeyIfNone({
        kid,
        publicJwk: { ...publicJwk, kid, alg: 'ES256', use: 'sig' },
        privateJwkSealed: secrets.encrypt(JSON.stringify(privateJwk), SEAL_CONTEXT),
        createdAt: clock.now(),
      });
      row = await store.currentKey();
    }
    const privateJwk = JSON.parse(await secrets.decrypt(row!.privateJwkSealed, SEAL_CONTEXT)) as JWK;
    signing = { kid: row!.kid, key: await importJWK(privateJwk, 'ES256') };
    return signing;
  }

  return {
    /** The value of the Plaid-Verification header for this exact body. */
    async sign(rawBody: string, issuedAt: Date = clock.now()): Promise<string> {
      const { kid, key } = await ensureKey();
      const bodyHash = createHash('sha256').update(rawBody, 'utf8').digest('hex');
      return new SignJWT({ request_body_sha256: bodyHash })
        .setProtectedHeader({ alg: 'ES256', kid, typ: 'JWT' })
        .setIssuedAt(Math.floor(issuedAt.getTime() / 1000))
        .sign(key);
    },

    /** The public key of a key id, in the provider's answer shape; undefined when unknown. */
    async publicKey(kid: string): Promise<WebhookKey | undefined> {
      await ensureKey();
      const row = await store.findKey(kid);
      if (!row) return undefined;
      const jwk = row.publicJwk;
      return {
        alg: 'ES256',
        crv: jwk.crv!,
        kid: row.kid,
        kty: jwk.kty!,
        use: 'sig',
        x: jwk.x!,
        y: jwk.y!,
        created_at: Math.floor(row.createdAt.getTime() / 1000),
        expired_at: row.expiredAt ? Math.floor(row.expiredAt.getTime() / 1000) : null,
      };
    },
  };
}

export type WebhookSigner = ReturnType<typeof createWebhookSigner>;
