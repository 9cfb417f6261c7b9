import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';

/** custody-a's request-authentication headers (docs/providers.md). */
export const ACCESS_KEY_HEADER = 'api-access-key';
export const TIMESTAMP_HEADER = 'api-timestamp';
export const SIGNATURE_HEADER = 'api-signature';
/** Webhook headers: the P-256 signature (base64, DER) over `${timestamp}.${body}`. */
export const WEBHOOK_SIGNATURE_HEADER = 'x-custody-signature';
export const WEBHOOK_TIMESTAMP_HEADER = 'x-custody-timestamp';

/**
 * Parsed keys by their PEM: parsing is most of a signature's cost (a webhook is signed at every
 * status change, a request at every call) and a PEM parses to the same key every time. Keyed by
 * the PEM text itself, so a new key is a new entry; bounded, oldest out first.
 */
const parsed = new Map<string, KeyObject>();
const PARSED_MAX = 256;
function keyOf(pem: string, kind: 'public' | 'private'): KeyObject {
  const id = `${kind}\n${pem}`;
  let key = parsed.get(id);
  if (!key) {
    key = kind === 'public' ? createPublicKey(pem) : createPrivateKey(pem);
    if (parsed.size >= PARSED_MAX) parsed.delete(parsed.keys().next().value!);
    parsed.set(id, key);
  }
  return key;
}

/** A request timestamp more than this far from the provider's clock is refused (replay window). */
export const REQUEST_WINDOW_SECONDS = 300;

/** The signed message of a request: timestamp, upper-case method, path with query, raw body. */
export function requestMessage(timestamp: string, method: string, pathWithQuery: string, body: string): Buffer {
  return Buffer.from(`${timestamp}${method.toUpperCase()}${pathWithQuery}${body}`, 'utf8');
}

/** The Ed25519 signature of a request, hex. */
export function signRequest(privateKeyPem: string, timestamp: string, method: string, pathWithQuery: string, body: string): string {
  return sign(null, requestMessage(timestamp, method, pathWithQuery, body), keyOf(privateKeyPem, 'private')).toString('hex');
}

export function verifyRequest(publicKeyPem: string, timestamp: string, method: string, pathWithQuery: string, body: string, signatureHex: string): boolean {
  if (!/^[0-9a-f]{128}$/i.test(signatureHex)) return false;
  try {
    return verify(null, requestMessage(timestamp, method, pathWithQuery, body), keyOf(publicKeyPem, 'public'), Buffer.from(signatureHex, 'hex'));
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
  return sign('sha256', Buffer.from(`${timestamp}.${body}`, 'utf8'), { key: keyOf(privateKeyPem, 'private'), dsaEncoding: 'der' }).toString('base64');
}

export function verifyWebhook(publicKeyPem: string, timestamp: string, body: string, signatureBase64: string): boolean {
  let key: KeyObject;
  try {
    key = keyOf(publicKeyPem, 'public');
    if (key.asymmetricKeyType !== 'ec') return false;
    return verify('sha256', Buffer.from(`${timestamp}.${body}`, 'utf8'), { key, dsaEncoding: 'der' }, Buffer.from(signatureBase64, 'base64'));
  } catch {
    return false;
  }
}
