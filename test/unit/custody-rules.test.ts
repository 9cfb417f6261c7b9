import { describe, expect, it } from 'vitest';
import { checkContract, checkEvmAddress, checkQty, checkXrplAddress } from '../../src/modules/custody/validation.js';
import { transactionStatusRank, transferStatusRank } from '../../src/modules/custody/status-order.js';
import { FINAL_TRANSACTION_STATUSES, FINAL_TRANSFER_STATUSES } from '../../src/providers/custody/port.js';
import { AppError } from '../../src/platform/http/errors.js';

/** The AppError `fn` throws, or undefined when it returns. */
function thrown(fn: () => unknown): AppError | undefined {
  try {
    fn();
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
}

describe('checkQty: amounts are positive decimal strings, never floats', () => {
  it.each([
    ['1', 18],
    ['0.1', 18],
    ['0.000000000000000001', 18], // one wei
    ['1.000000000000000000', 18], // trailing zeros within the decimals
    ['123456789012345678901', 18], // 21 integer digits
    ['123456789012345678901.123456789012345678', 18],
    ['10', 0],
    ['0.000001', 6], // one drop
    ['999999.999999', 6],
  ])('accepts %s with %i decimals, as given', (value, decimals) => {
    expect(checkQty(value, decimals, 'body.qty')).toBe(value);
  });

  it.each([
    ['zero', '0', 18],
    ['zero with decimals', '0.000', 18],
    ['negative', '-1', 18],
    ['negative zero', '-0', 18],
    ['a plus sign', '+1', 18],
    ['exponent notation', '1e18', 18],
    ['upper-case exponent', '1E3', 18],
    ['a leading zero', '01', 18],
    ['a leading dot', '.5', 18],
    ['a trailing dot', '1.', 18],
    ['two dots', '1.2.3', 18],
    ['a comma', '1,5', 18],
    ['an underscore', '1_000', 18],
    ['hex', '0x10', 18],
    ['spaces', ' 1', 18],
    ['a trailing newline', '1\n', 18],
    ['Infinity', 'Infinity', 18],
    ['NaN', 'NaN', 18],
    ['empty', '', 18],
    ['19 decimals of an 18-decimal asset', '0.0000000000000000001', 18],
    ['7 decimals of a 6-decimal asset (XRP drops)', '1.0000001', 6],
    ['trailing zeros past the decimals', '1.0000000', 6],
    ['a fraction of an asset without decimals', '1.5', 0],
    ['22 integer digits', '1234567890123456789012', 18],
    ['a huge value', '9'.repeat(100), 18],
    ['full-width digits', '１', 18],
    ['Arabic-Indic digits', '١', 18],
  ])('refuses %s (%j) with AMOUNT_INVALID naming the field and the decimals', (_what, value, decimals) => {
    const error = thrown(() => checkQty(value, decimals, 'body.amount'));
    expect(error?.code).toBe('AMOUNT_INVALID');
    expect(error?.statusCode).toBe(400);
    expect(error?.message).toContain('body.amount');
    expect(error?.message).toContain(`${decimals} decimals`);
  });
});

describe('custody addresses', () => {
  const CHECKSUMMED = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
  it('answers an EVM destination checksummed, from either one-case form', () => {
    expect(checkEvmAddress(CHECKSUMMED.toLowerCase(), 'body.destinationAddress')).toBe(CHECKSUMMED);
    expect(checkEvmAddress(`0x${CHECKSUMMED.slice(2).toUpperCase()}`, 'body.destinationAddress')).toBe(CHECKSUMMED);
  });

  it.each(['0x5aaeb6053F3E94C9b9A09f33669435E7Ef1BeAed', '0x123', 'rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh', ''])('refuses the EVM destination %j', (value) => {
    const error = thrown(() => checkEvmAddress(value, 'body.destinationAddress'));
    expect(error?.code).toBe('ADDRESS_INVALID');
    expect(error?.message).toBe('body.destinationAddress is not a valid EVM address');
  });

  it('a token contract must be given in its EIP-55 form', () => {
    expect(checkContract(CHECKSUMMED)).toBe(CHECKSUMMED);
    expect(thrown(() => checkContract(CHECKSUMMED.toLowerCase()))?.code).toBe('CONTRACT_INVALID');
  });

  it('an XRPL destination is a classic address', () => {
    expect(checkXrplAddress('rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh', 'body.destinationAddress')).toBe('rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh');
    expect(thrown(() => checkXrplAddress('XVLhHMPHU98es4dbozjVtdWzVrDjtV18pX8yuPT7y4xaEHi', 'body.destinationAddress'))?.code).toBe('ADDRESS_INVALID');
    expect(thrown(() => checkXrplAddress(CHECKSUMMED, 'body.destinationAddress'))?.message).toBe('body.destinationAddress is not a valid XRPL address');
  });
});

describe('custody status order: never backwards', () => {
  const TRANSACTION_PATH = ['REQUESTED', 'APPROVED', 'COMPILED', 'SIGNED', 'PUBLISHED', 'CONFIRMATION_PENDING'];
  const TRANSFER_PATH = ['QUEUED', 'IN_PROGRESS'];

  it.each([
    ['transaction', transactionStatusRank, TRANSACTION_PATH, FINAL_TRANSACTION_STATUSES],
    ['transfer', transferStatusRank, TRANSFER_PATH, FINAL_TRANSFER_STATUSES],
  ] as const)('a %s moves along its path, and every final status outranks every other', (_kind, rank, path, finals) => {
    for (let i = 1; i < path.length; i++) expect(rank(path[i]!)).toBeGreaterThan(rank(path[i - 1]!));
    const top = Math.max(...path.map(rank));
    for (const final of finals) expect(rank(final)).toBeGreaterThan(top);
    // The final statuses rank alike: a late FAILED never replaces a CONFIRMED, nor the reverse.
    expect(new Set(finals.map(rank)).size).toBe(1);
    expect(Math.min(...path.map(rank))).toBeGreaterThanOrEqual(0);
  });

  it.each(['', 'confirmed', 'UNKNOWN', 'toString', '__proto__', 'constructor', 'hasOwnProperty'])('the status %j is unknown: it ranks below every status', (status) => {
    expect(transactionStatusRank(status)).toBe(-1);
    expect(transferStatusRank(status)).toBe(-1);
  });
});
