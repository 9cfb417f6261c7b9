import { getAddress, isAddress } from 'viem';
import { isValidClassicAddress } from 'xrpl';
import { CustodyErrors } from './errors.js';

const DECIMAL_RE = /^(0|[1-9]\d{0,20})(\.\d+)?$/;

/** A positive decimal string with at most `decimals` fraction digits (never a float). */
export function checkQty(value: string, decimals: number, field: string): string {
  const fraction = value.split('.')[1] ?? '';
  if (!DECIMAL_RE.test(value) || /^0(\.0+)?$/.test(value) || fraction.length > decimals) throw CustodyErrors.qtyInvalid(field, decimals);
  return value;
}

/** An EVM address in one case or valid EIP-55; answered checksummed. */
export function checkEvmAddress(value: string, field: string): string {
  if (!/^0x[0-9a-fA-F]{40}$/.test(value)) throw CustodyErrors.addressInvalid(field, 'EVM');
  const hex = value.slice(2);
  if (hex !== hex.toLowerCase() && hex !== hex.toUpperCase() && getAddress(value) !== value) throw CustodyErrors.addressInvalid(field, 'EVM');
  return getAddress(value);
}

export function checkXrplAddress(value: string, field: string): string {
  if (!isValidClassicAddress(value)) throw CustodyErrors.addressInvalid(field, 'XRPL');
  return value;
}

export function checkContract(value: string): string {
  if (!isAddress(value, { strict: true }) || getAddress(value) !== value) throw CustodyErrors.contractInvalid();
  return value;
}
