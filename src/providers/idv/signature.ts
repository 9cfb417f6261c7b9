import { createHmac } from 'node:crypto';
import { safeEqual } from '../../platform/crypto/hash.js';

/** The signature header of requests and webhooks of both providers, and the client header. */
export const SIGNATURE_HEADER = 'x-hmac-signature';
export const CLIENT_HEADER = 'x-auth-client';

/** HMAC-SHA256 of the raw body, lower-case hex. */
export function signBody(raw: string | Buffer, secret: string): string {
  return createHmac('sha256', secret).update(raw).digest('hex');
}

/** Constant-time check of a hex signature over the raw body (case-insensitive hex). */
export function verifyBodySignature(raw: string | Buffer, signature: string, secret: string): boolean {
  return safeEqual(signature.trim().toLowerCase(), signBody(raw, secret));
}
