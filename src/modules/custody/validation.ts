import { parseEvmAddress } from '../../platform/crypto/evm-address.js';
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
  const address = parseEvmAddress(value);
  if (!address) throw CustodyErrors.addressInvalid(field, 'EVM');
  return address;
}

export function checkXrplAddress(value: string, field: string): string {
  if (!isValidClassicAddress(value)) throw CustodyErrors.addressInvalid(field, 'XRPL');
  return value;
}

export function checkContract(value: string): string {
  if (!parseEvmAddress(value, { checksummedOnly: true })) throw CustodyErrors.contractInvalid();
  return value;
}
