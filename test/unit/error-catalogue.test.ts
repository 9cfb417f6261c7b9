import { describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE, statusOf, type ErrorCode } from '../../src/platform/http/error-catalogue.js';

const CODES = Object.keys(ERROR_CATALOGUE) as ErrorCode[];

describe('error catalogue lookups', () => {
  it.each<[ErrorCode, number]>([
    ['TENANT_REQUIRED', 401],
    ['FORBIDDEN', 403],
    ['ROUTE_NOT_FOUND', 404],
    ['VALIDATION_FAILED', 400],
    ['PROVIDER_NOT_CONFIGURED', 503],
    ['PROVIDER_REFUSED', 502],
    ['AMOUNT_INVALID', 400],
    ['ADDRESS_INVALID', 400],
    ['PASSWORD_POLICY', 400],
    ['WALLET_NOT_FOUND', 404],
  ])('statusOf(%s) is %i', (code, status) => {
    expect(statusOf(code)).toBe(status);
  });

  it('every code has one client or server error status and a meaning', () => {
    for (const code of CODES) {
      const { status, meaning } = ERROR_CATALOGUE[code];
      expect(statusOf(code), code).toBe(status);
      expect(status >= 400 && status <= 599, `${code}: ${status}`).toBe(true);
      expect(meaning.trim().length, code).toBeGreaterThan(10);
    }
  });

  it('codes are UPPER_SNAKE (the CLI usage code aside)', () => {
    expect(CODES.filter((code) => !/^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/.test(code))).toEqual(['usage']);
  });

  it('no two codes share a meaning', () => {
    const meanings = CODES.map((code) => ERROR_CATALOGUE[code].meaning.toLowerCase());
    expect(new Set(meanings).size).toBe(meanings.length);
  });
});
