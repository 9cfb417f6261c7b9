import { createPrivateKey, randomUUID, sign } from 'node:crypto';
import type { CredentialAssertion } from '../port.js';

/** Base64url without padding (the provider's encoding of client data and signatures). */
export const b64url = (data: Buffer | string): string => Buffer.from(data).toString('base64url');

/** Client data of a key credential: the provider's `{type, challenge, origin, crossOrigin}`. */
export function keyClientData(type: 'key.get' | 'key.create', challenge: string, origin?: string): Buffer {
  return Buffer.from(JSON.stringify(origin === undefined ? { type, challenge } : { type, challenge, origin, crossOrigin: false }));
}

/**
 * Signs a challenge with a key credential (ECDSA P-256 with SHA-256, or Ed25519), as a
 * user's or the service account's key signer does: the signature covers the client data bytes.
 */
export function signWithKeyCredential(challenge: string, credId: string, privateKeyPem: string, origin?: string): CredentialAssertion {
  const clientData = keyClientData('key.get', challenge, origin);
  const key = createPrivateKey(privateKeyPem);
  const signature = sign(key.asymmetricKeyType === 'ed25519' ? null : 'sha256', clientData, key);
  return { kind: 'Key', credentialAssertion: { credId, clientData: b64url(clientData), signature: b64url(signature) } };
}

/** The request nonce header value: base64url JSON of a fresh uuid and the time. */
export function requestNonce(now: Date): string {
  return b64url(JSON.stringify({ uuid: randomUUID(), datetime: now.toISOString() }));
}
