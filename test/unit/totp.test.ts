import { describe, expect, it } from 'vitest';
import { matchTotp, newRecoveryCodes, normalizeRecoveryCode, RECOVERY_CODE_COUNT, stepAt, TOTP_PERIOD_S } from '../../src/modules/auth/totp.js';

// RFC 6238 appendix B: the SHA-1 seed is the ASCII string "12345678901234567890" (base32 below);
// the RFC's codes have 8 digits, an authenticator app shows their last 6 (RFC 4226 truncation).
const RFC6238_SECRET = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
const RFC6238_SHA1 = [
  [59, '94287082'],
  [1111111109, '07081804'],
  [1111111111, '14050471'],
  [1234567890, '89005924'],
  [2000000000, '69279037'],
  [20000000000, '65353130'],
] as const;

const at = (seconds: number) => new Date(seconds * 1000);

describe('matchTotp: RFC 6238 known answers', () => {
  it('the base32 secret is the RFC seed', () => {
    expect(Buffer.from('12345678901234567890').toString('hex')).toBe('3132333435363738393031323334353637383930');
  });

  it.each(RFC6238_SHA1)('at T=%i the code is the last six digits of %s', (seconds, code8) => {
    const code = code8.slice(2);
    expect(matchTotp(RFC6238_SECRET, code, at(seconds), null)).toBe(Math.floor(seconds / TOTP_PERIOD_S));
    expect(stepAt(at(seconds))).toBe(Math.floor(seconds / TOTP_PERIOD_S));
  });

  it.each(RFC6238_SHA1)('at T=%i the 8-digit form %s is refused', (seconds, code8) => {
    expect(matchTotp(RFC6238_SECRET, code8, at(seconds), null)).toBeNull();
  });
});

describe('matchTotp: window, replay and input', () => {
  const T = 1111111111; // step 37037037, code 050471
  const STEP = Math.floor(T / 30);
  const CODE = '050471';

  it.each([
    ['one step later (accepted: drift)', T + 30, STEP],
    ['one step earlier (accepted: drift)', T - 30, STEP],
    ['two steps later', T + 60, null],
    ['two steps earlier', T - 60, null],
  ])('the code checked %s', (_what, seconds, answer) => {
    expect(matchTotp(RFC6238_SECRET, CODE, at(seconds), null)).toBe(answer);
  });

  it('a code is good once: steps at or before the last used are refused', () => {
    expect(matchTotp(RFC6238_SECRET, CODE, at(T), STEP - 1)).toBe(STEP);
    expect(matchTotp(RFC6238_SECRET, CODE, at(T), STEP)).toBeNull();
    expect(matchTotp(RFC6238_SECRET, CODE, at(T), STEP + 1)).toBeNull();
  });

  it('a code of another secret is refused', () => {
    expect(matchTotp('JBSWY3DPEHPK3PXP', CODE, at(T), null)).toBeNull();
  });

  it.each([
    ['empty', ''],
    ['five digits', '05047'],
    ['seven digits', '0504710'],
    ['a leading space', ' 050471'],
    ['a trailing newline', '050471\n'],
    ['letters', 'abcdef'],
    ['a sign', '+50471'],
    ['full-width digits', '０５０４７１'],
    ['a multi-byte character', '05047é'],
    ['an emoji', '05047😀'],
  ])('refuses %s without throwing', (_what, code) => {
    expect(matchTotp(RFC6238_SECRET, code, at(T), null)).toBeNull();
  });
});

describe('recovery codes', () => {
  it('makes ten distinct codes of the shown form, each normalizing to itself', () => {
    const codes = newRecoveryCodes();
    expect(codes).toHaveLength(RECOVERY_CODE_COUNT);
    expect(new Set(codes).size).toBe(RECOVERY_CODE_COUNT);
    for (const code of codes) {
      expect(code).toMatch(/^[a-z2-7]{5}-[a-z2-7]{5}$/);
      expect(normalizeRecoveryCode(code)).toBe(code);
    }
  });

  it.each([
    ['abcde-fghij', 'abcde-fghij'],
    ['ABCDE-FGHIJ', 'abcde-fghij'],
    ['abcdefghij', 'abcde-fghij'],
    ['ab-cde-fgh-ij', 'abcde-fghij'],
    ['a2345-67abc', 'a2345-67abc'],
    ['abcde-fghi', undefined],
    ['abcde-fghijk', undefined],
    ['abcde-fghi1', undefined], // 1 is not base32
    ['abcde-fghi8', undefined],
    ['abcde fghij', undefined],
    ['', undefined],
  ])('%j -> %j', (given, normalized) => {
    expect(normalizeRecoveryCode(given)).toBe(normalized);
  });
});
