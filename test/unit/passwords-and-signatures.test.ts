import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkPasswordPolicy, PASSWORD_MAX, PASSWORD_MIN } from '../../src/modules/auth/passwords.js';
import { AppError } from '../../src/platform/http/errors.js';
import { signBody, verifyBodySignature } from '../../src/providers/idv/signature.js';

function policyError(password: string): string | undefined {
  try {
    checkPasswordPolicy(password, 'newPassword');
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('PASSWORD_POLICY');
    expect((error as AppError).message).toContain('body.newPassword');
    return (error as AppError).message.includes('common') ? 'common' : 'length';
  }
}

describe('checkPasswordPolicy', () => {
  it.each([
    ['eight characters', 'Zq8#vLp2', undefined],
    ['the maximum length', 'x7'.repeat(PASSWORD_MAX / 2), undefined],
    ['seven characters', 'Zq8#vLp', 'length'],
    ['empty', '', 'length'],
    ['one character over the maximum', 'x7'.repeat(PASSWORD_MAX / 2) + 'y', 'length'],
    // Length counts characters (code points), not UTF-16 units or bytes.
    ['eight emoji (16 UTF-16 units)', '😀'.repeat(8), undefined],
    ['seven emoji (14 UTF-16 units)', '😀'.repeat(7), 'length'],
    ['128 emoji', '😀'.repeat(PASSWORD_MAX), undefined],
    ['129 emoji', '😀'.repeat(PASSWORD_MAX + 1), 'length'],
    // The common-password list, in any case.
    ['password', 'password', 'common'],
    ['PASSWORD', 'PASSWORD', 'common'],
    ['12345678', '12345678', 'common'],
    ['iloveyou', 'iloveyou', 'common'],
    ['a common password with one more character', 'password!x9', undefined],
  ])('%s -> %s', (_what, password, broken) => {
    expect(policyError(password)).toBe(broken);
  });

  it('states the bounds the error message names', () => {
    expect([PASSWORD_MIN, PASSWORD_MAX]).toEqual([8, 128]);
  });
});

describe('provider webhook HMAC (x-hmac-signature)', () => {
  // RFC 4231 test case 2: key "Jefe", data "what do ya want for nothing?".
  const RFC4231_2 = '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843';

  it('signs the raw body with HMAC-SHA256, lower-case hex (RFC 4231 test case 2)', () => {
    expect(signBody('what do ya want for nothing?', 'Jefe')).toBe(RFC4231_2);
    expect(signBody(Buffer.from('what do ya want for nothing?'), 'Jefe')).toBe(RFC4231_2);
  });

  const body = JSON.stringify({ id: 'evt_1', status: 'approved', note: 'café' });
  const secret = 'whsec_unit';
  const good = createHmac('sha256', secret).update(body).digest('hex');

  it.each([
    ['the signature', good, true],
    ['the signature in upper case', good.toUpperCase(), true],
    ['the signature with surrounding spaces', `  ${good}\n`, true],
    ['a signature by another secret', signBody(body, 'other'), false],
    ['a signature of another body', signBody(`${body} `, secret), false],
    ['a truncated signature', good.slice(0, -1), false],
    ['a signature with one more digit', `${good}0`, false],
    ['a sha256= prefixed signature', `sha256=${good}`, false],
    ['base64 of the digest', createHmac('sha256', secret).update(body).digest('base64'), false],
    ['an empty signature', '', false],
  ])('%s -> %s', (_what, signature, valid) => {
    expect(verifyBodySignature(body, signature, secret)).toBe(valid);
  });

  it('verifies the raw bytes: a re-serialized body with the same JSON fails', () => {
    const reserialized = JSON.stringify(JSON.parse(body), null, 1);
    expect(verifyBodySignature(reserialized, good, secret)).toBe(false);
  });
});
