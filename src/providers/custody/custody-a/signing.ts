import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';

/** custody-a's request-authentication headers (docs/providers.md). */
export const ACCESS_KEY_HEADER = 'api-access-key';
export const TIMESTAMP_HEADER = 'api-timestamp';
export const SIGNATURE_HEADER = 'api-signature';
/** Webhook headers: the P-256 signature (base64, DER) over `${timestamp}.${body}`. */
export const WEBHOOK_SIGNATURE_HEADER = 'x-custody-signature';
export const WEBHOOK_TIMESTAMP_HEADER = 'x-custody-timestamp';

/** A request timestamp more than this far from the provider's clock is refused (replay window). */
export const REQUEST_WINDOW_SECONDS = 300;

/** The signed message of a request: timestamp, upper-case method, path with query, raw body. */
export function requestMessage(timestamp: string, method: string, pathWithQuery: string, body: string): Buffer {
  return Buffer.from(`${timestamp}${method.toUpperCase()}${pathWithQuery}${body}`, 'utf8');
}

/** The Ed25519 signature of a request, hex. */
export function signRequest(privateKeyPem: string, timestamp: string, method: string, pathWithQuery: string, body: string): string {
  return sign(null, requestMessage(timestamp, method, pathWithQuery, body), createPrivateKey(privateKeyPem)).toString('hex');
}

export function verifyRequest(publicKeyPem: string, timestamp: string, method: string, pathWithQuery: string, body: string, signatureHex: string): boolean {
  if (!/^[0-9a-f]{128}$/i.test(signatureHex)) return false;
  try {
    return verify(null, requestMessage(timestamp, method, pathWithQuery, body), createPublicKey(publicKeyPem), Buffer.from(signatureHex, 'hex'));
  } catch {
    return false;
  }
}

export function newEd25519KeyPair(): { publicKeyPem: string; privateKeyPem: string } {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  return { publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(), privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
}

export function newP256KeyPair(): { publicKeyPem: string; privateKeyPem: string } {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  return { publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(), privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
}

/** Checks a PEM is an Ed25519 private key (the configured signing key). */
export function isEd25519PrivateKey(pem: string): boolean {
  try {
    return createPrivateKey(pem).asymmetricKeyType === 'ed25519';
  } catch {
    return false;
  }
}

export function signWebhook(privateKeyPem: string, timestamp: string, body: string): string {
  return sign('sha256', Buffer.from(`${timestamp}.${body}`, 'utf8'), { key: createPrivateKey(privateKeyPem), dsaEncoding: 'der' }).toString('base64');
}

export function verifyWebhook(publicKeyPem: string, timestamp: string, body: string, signatureBase64: string): boolean {
  let key: KeyObject;
  try {
    key = createPublicKey(publicKeyPem);
    if (key.asymmetricKeyType !== 'ec') return false;
    return verify('sha256', Buffer.from(`${timestamp}.${body}`, 'utf8'), { key, dsaEncoding: 'der' }, Buffer.from(signatureBase64, 'base64'));
  } catch {
    return false;
  }
}
