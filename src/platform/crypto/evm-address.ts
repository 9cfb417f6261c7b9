import { checksumAddress, type Address } from 'viem';

/** The shape alone (0x and 40 hex digits, any case), for request schemas; parseEvmAddress applies the checksum rule. */
export const EVM_ADDRESS_PATTERN = '^0x[0-9a-fA-F]{40}$';
const SHAPE = new RegExp(EVM_ADDRESS_PATTERN);

export interface EvmAddressRule {
  /** Only the EIP-55 form itself (fields the decisions doc requires checksummed, e.g. a token contract). */
  checksummedOnly?: boolean;
}

/**
 * The service's one EVM address parser, with one rule: `0x` and 40 hex digits, either in one
 * case (all lower or all upper: such a form carries no checksum) or mixed case with a valid
 * EIP-55 checksum. Mixed case with a wrong checksum is a typo and is refused everywhere,
 * never silently corrected. Answers the EIP-55 form, or undefined when the value is refused.
 * Every EVM address check of src/ goes through here; never call viem's isAddress/getAddress
 * on input directly (getAddress corrects a wrong checksum instead of refusing it).
 */
export function parseEvmAddress(value: unknown, rule: EvmAddressRule = {}): Address | undefined {
  if (typeof value !== 'string' || !SHAPE.test(value)) return undefined;
  const eip55 = checksumAddress(value as Address);
  if (eip55 === value) return eip55;
  if (rule.checksummedOnly) return undefined;
  const hex = value.slice(2);
  return hex === hex.toLowerCase() || hex === hex.toUpperCase() ? eip55 : undefined;
}

export function isEvmAddress(value: unknown, rule: EvmAddressRule = {}): value is string {
  return parseEvmAddress(value, rule) !== undefined;
}

/** The EIP-55 form of an address already checked by parseEvmAddress; throws on anything else (a bug, not input). */
export function toEip55(value: string): Address {
  const address = parseEvmAddress(value);
  if (!address) throw new Error(`not an EVM address: ${value}`);
  return address;
}
