import { describe, expect, it } from 'vitest';
import { areaOfTags, KEY_SCOPES, keyAdmits, type KeyArea } from '../../src/platform/http/key-scopes.js';

describe('areaOfTags', () => {
  it.each<[string[] | undefined, KeyArea]>([
    [['Authentication'], 'users'],
    [['Users'], 'users'],
    [['KYC'], 'kyc'],
    [['Identity'], 'kyc'],
    [['Accreditations'], 'kyc'],
    [['Wallets'], 'wallets'],
    [['Wallets (XRPL)'], 'wallets'],
    [['Custody (custody-a)'], 'wallets'],
    [['Custody provider (custody-b)'], 'wallets'],
    [['Transfers'], 'wallets'],
    [['Sandbox faucets'], 'wallets'],
    [['Bank-account linking'], 'wallets'],
    [['Bank-account linking: sandbox originators'], 'wallets'],
    [['Documents'], 'documents'],
    // Tags no scope names: only an all-areas key.
    [['Audit'], 'all'],
    [['Entities'], 'all'],
    [['Events'], 'all'],
    [['API keys'], 'all'],
    [[], 'all'],
    [undefined, 'all'],
    // The first tag that names an area decides.
    [['Audit', 'KYC'], 'kyc'],
    [['Documents', 'Users'], 'documents'],
    // Names are exact: no case folding, no prototype keys.
    [['kyc'], 'all'],
    [['toString'], 'all'],
    [['__proto__'], 'all'],
  ])('%j -> %s', (tags, area) => {
    expect(areaOfTags(tags)).toBe(area);
  });
});

describe('keyAdmits', () => {
  const AREAS: KeyArea[] = ['all', 'users', 'kyc', 'wallets', 'documents'];
  const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
  const READS = new Set(['GET', 'HEAD']);

  /** The rule, stated case by case: an independent reading of the doc comment of key-scopes.ts. */
  function expected(scopes: string[] | null | undefined, area: KeyArea, method: string): boolean {
    if (!scopes || scopes.length === 0) return true; // a key from before scopes: everything
    const readOnly = scopes.includes('read-only');
    if (readOnly && !READS.has(method)) return false;
    const named = scopes.filter((s) => s !== 'read-only');
    if (named.length === 0) return true; // read-only alone: reads everywhere
    if (named.includes('all')) return true;
    return area !== 'all' && named.includes(area);
  }

  const SCOPE_SETS: Array<string[] | null | undefined> = [
    null,
    undefined,
    [],
    ['all'],
    ['read-only'],
    ['users'],
    ['kyc'],
    ['wallets'],
    ['documents'],
    ['kyc', 'wallets'],
    ['read-only', 'kyc'],
    ['read-only', 'all'],
    ['read-only', 'users', 'documents'],
    ['unknown-scope'],
  ];
  it.each(SCOPE_SETS.map((scopes) => [scopes]))('scopes %j: every area and method as the rule says', (scopes) => {
    for (const area of AREAS) {
      for (const method of METHODS) {
        expect(keyAdmits(scopes, area, method), `${area} ${method}`).toBe(expected(scopes, area, method));
      }
    }
  });

  it.each([
    [['kyc'], 'kyc', 'POST', true],
    [['kyc'], 'wallets', 'GET', false],
    [['kyc'], 'all', 'GET', false],
    [['all'], 'all', 'DELETE', true],
    [['read-only'], 'wallets', 'GET', true],
    [['read-only'], 'wallets', 'POST', false],
    [['read-only'], 'all', 'HEAD', true],
    [['read-only', 'kyc'], 'kyc', 'GET', true],
    [['read-only', 'kyc'], 'users', 'GET', false],
    [['read-only', 'kyc'], 'kyc', 'PATCH', false],
    // Methods are upper case as Fastify gives them; anything else is not a read.
    [['read-only'], 'kyc', 'get', false],
    [['unknown-scope'], 'kyc', 'GET', false],
  ] as const)('spot check: %j on %s with %s -> %s', (scopes, area, method, admitted) => {
    expect(keyAdmits(scopes, area, method)).toBe(admitted);
  });

  it('the scopes a key may hold are the areas, all and read-only', () => {
    expect([...KEY_SCOPES].sort()).toEqual(['all', 'documents', 'kyc', 'read-only', 'users', 'wallets']);
  });
});
