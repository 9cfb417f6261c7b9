import { randomBytes, timingSafeEqual } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import QRCode from 'qrcode';
import { sha256Hex } from '../../platform/crypto/hash.js';

/** RFC 6238 parameters every authenticator app reads from the URI: SHA-1, 6 digits, 30 seconds. */
export const TOTP_PERIOD_S = 30;
const DIGITS = 6;
/** One step either side of now is accepted (clock drift, a code typed as it turned over). */
export const TOTP_WINDOW = 1;
export const RECOVERY_CODE_COUNT = 10;
const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/** A fresh 160-bit secret (RFC 4226's recommended length), base32 as apps expect. */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

function totpOf(secret: string, issuer = '', label = ''): TOTP {
  return new TOTP({ issuer, label, algorithm: 'SHA1', digits: DIGITS, period: TOTP_PERIOD_S, secret: Secret.fromBase32(secret) });
}

/** The `otpauth://totp/...` URI (Key Uri Format) and the same as an SVG QR code data URL. */
export async function totpProvisioning(secret: string, issuer: string, label: string): Promise<{ otpauthUrl: string; qrCodeDataUrl: string }> {
  const otpauthUrl = totpOf(secret, issuer, label).toString();
  const svg = await QRCode.toString(otpauthUrl, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
  return { otpauthUrl, qrCodeDataUrl: `data:image/svg+xml;base64,${Buffer.from(svg, 'utf8').toString('base64')}` };
}

export const stepAt = (now: Date) => Math.floor(now.getTime() / 1000 / TOTP_PERIOD_S);

/**
 * The time step a 6-digit code matches, or null. Steps at or before `lastStep` are never
 * accepted (a code is good once). Every candidate is compared, in constant time, so the time
 * taken does not tell which step (if any) matched.
 */
export function matchTotp(secret: string, code: string, now: Date, lastStep: number | null): number | null {
  // Not six digits: no step can match (and a multi-byte character would make the buffers
  // differ in length, which timingSafeEqual throws on). The format tells nothing secret.
  if (!/^\d{6}$/.test(code)) return null;
  const totp = totpOf(secret);
  const given = Buffer.from(code, 'utf8');
  const current = stepAt(now);
  let matched: number | null = null;
  for (let step = current - TOTP_WINDOW; step <= current + TOTP_WINDOW; step++) {
    const expected = Buffer.from(totp.generate({ timestamp: step * TOTP_PERIOD_S * 1000 }), 'utf8');
    const equal = timingSafeEqual(expected, given);
    if (equal && matched === null && (lastStep === null || step > lastStep)) matched = step;
  }
  return matched;
}

/** Ten codes of 50 random bits each, shown as `xxxxx-xxxxx` (base32, lower case). */
export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const bytes = randomBytes(10);
    const chars = Array.from(bytes, (b) => BASE32[b & 31]).join('');
    return `${chars.slice(0, 5)}-${chars.slice(5, 10)}`;
  });
}

/** Accepts the code as shown, in either case, with or without its dash; undefined when it is not one. */
export function normalizeRecoveryCode(code: string): string | undefined {
  const plain = code.toLowerCase().replace(/-/g, '');
  return /^[a-z2-7]{10}$/.test(plain) ? `${plain.slice(0, 5)}-${plain.slice(5)}` : undefined;
}

/** High-entropy codes: a salted SHA-256 is enough (no guessing within the attempt limits). */
export const recoveryCodeHash = (tenantId: string, userId: string, code: string) => sha256Hex(`recovery:${tenantId}:${userId}:${code}`);
