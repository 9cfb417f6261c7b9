import { describe, expect, it } from 'vitest';
import { isEvmAddress, parseEvmAddress, toEip55 } from '../../src/platform/crypto/evm-address.js';

// The test vectors of EIP-55 (https://eips.ethereum.org/EIPS/eip-55#test-cases).
const EIP55_VECTORS = [
  // All caps
  '0x52908400098527886E0F7030069857D2E4169EE7',
  '0x8617E340B3D01FA5F11F306F4090FD50E238070D',
  // All lower
  '0xde709f2102306220921060314715629080e2fb77',
  '0x27b1fdb04752bbc536007a920d24acb045561c26',
  // Normal
  '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
  '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
  '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
];
const MIXED = EIP55_VECTORS.slice(4);

/** The address with the case of its first letter digit flipped: a wrong checksum. */
function flipOneLetter(address: string): string {
  const hex = address.slice(2);
  const at = hex.search(/[a-fA-F]/);
  const c = hex[at]!;
  const flipped = c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase();
  return `0x${hex.slice(0, at)}${flipped}${hex.slice(at + 1)}`;
}

describe('parseEvmAddress', () => {
  it.each(EIP55_VECTORS)('accepts the EIP-55 vector %s as it is, in both modes', (address) => {
    expect(parseEvmAddress(address)).toBe(address);
    expect(parseEvmAddress(address, { checksummedOnly: true })).toBe(address);
  });

  it.each(MIXED)('answers the EIP-55 form of %s given in one case (lenient), refuses it (strict)', (address) => {
    for (const oneCase of [address.toLowerCase(), `0x${address.slice(2).toUpperCase()}`]) {
      expect(parseEvmAddress(oneCase)).toBe(address);
      expect(parseEvmAddress(oneCase, { checksummedOnly: true })).toBeUndefined();
    }
  });

  it.each(MIXED)('refuses %s with one letter of the wrong case (a typo), never correcting it', (address) => {
    const typo = flipOneLetter(address);
    expect(typo).not.toBe(address);
    expect(parseEvmAddress(typo)).toBeUndefined();
    expect(parseEvmAddress(typo, { checksummedOnly: true })).toBeUndefined();
    expect(isEvmAddress(typo)).toBe(false);
  });

  const valid = MIXED[0]!;
  it.each<[string, unknown]>([
    ['empty', ''],
    ['0x alone', '0x'],
    ['39 digits', valid.slice(0, -1)],
    ['41 digits', `${valid}a`],
    ['no prefix', valid.slice(2)],
    ['0X prefix', `0X${valid.slice(2)}`],
    ['a leading space', ` ${valid}`],
    ['a trailing space', `${valid} `],
    ['a trailing newline', `${valid}\n`],
    ['a non-hex letter', `0x${'g'.repeat(40)}`],
    ['full-width digits', `0x${'１'.repeat(40)}`],
    ['a NUL inside', `${valid.slice(0, 10)}\u0000${valid.slice(11)}`],
    ['an ENS name', 'vitalik.eth'],
    ['an XRPL address', 'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh'],
    ['a number', 0x52908400],
    ['a bigint', 1n],
    ['null', null],
    ['undefined', undefined],
    ['an array holding the address', [valid]],
    ['an object', { toString: () => valid }],
    ['a String object', new String(valid)],
  ])('refuses %s', (_what, value) => {
    expect(parseEvmAddress(value)).toBeUndefined();
    expect(isEvmAddress(value)).toBe(false);
  });
});

describe('toEip55', () => {
  it('answers the checksummed form of an address in one case', () => {
    expect(toEip55('0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed')).toBe('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed');
  });
  it('throws on anything else (a bug, not input)', () => {
    expect(() => toEip55(flipOneLetter(MIXED[0]!))).toThrow(/not an EVM address/);
    expect(() => toEip55('')).toThrow(/not an EVM address/);
  });
});
