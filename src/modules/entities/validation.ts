import bitcoinAddress, { Network } from 'bitcoin-address-validation';
import { code as currencyCode } from 'currency-codes';
// The library's core without its country names in ~80 languages (its Node entry loads them all): only the codes are checked.
import countries from 'i18n-iso-countries/index.js';
import { electronicFormatIBAN, isValidBIC, isValidIBAN } from 'ibantools';
import { isEvmAddress } from '../../platform/crypto/evm-address.js';
import { isValidClassicAddress } from 'xrpl';

/** Letters count 10..35 and the whole number is taken mod 97, a digit at a time (ISO 7064). */
function mod97(value: string): number {
  let rest = 0;
  for (const ch of value) {
    const n = /[0-9]/.test(ch) ? ch : String(ch.charCodeAt(0) - 55);
    for (const digit of n) rest = (rest * 10 + Number(digit)) % 97;
  }
  return rest;
}

/** ISO 17442: 18 alphanumerics and two check digits; valid when the number mod 97 is 1. */
export function isValidLei(lei: string): boolean {
  return /^[A-Z0-9]{18}[0-9]{2}$/.test(lei) && mod97(lei) === 1;
}

/** ISO 3166-1 alpha-2, upper case (the schema enforces the shape). */
export function isCountryCode(value: string): boolean {
  return /^[A-Z]{2}$/.test(value) && countries.isValid(value);
}

/** ISO 4217 alphabetic code. */
export function isCurrencyCode(value: string): boolean {
  return /^[A-Z]{3}$/.test(value) && currencyCode(value) !== undefined;
}

export const METADATA_MAX_BYTES = 16 * 1024;
const METADATA_MAX_DEPTH = 5;

function depth(value: unknown): number {
  if (!value || typeof value !== 'object') return 0;
  const children = Array.isArray(value) ? value : Object.values(value as object);
  return 1 + children.reduce<number>((max, child) => Math.max(max, depth(child)), 0);
}

export function metadataWithinLimits(metadata: Record<string, unknown>): boolean {
  return Buffer.byteLength(JSON.stringify(metadata)) <= METADATA_MAX_BYTES && depth(metadata) <= METADATA_MAX_DEPTH;
}

/** The IBAN in electronic form (no spaces, upper case) when valid, else undefined. */
export function normalizeIban(value: string): string | undefined {
  const electronic = electronicFormatIBAN(value);
  return electronic && isValidIBAN(electronic) ? electronic : undefined;
}

export function normalizeBic(value: string): string | undefined {
  const upper = value.trim().toUpperCase();
  return isValidBIC(upper) ? upper : undefined;
}

/** ABA routing number: nine digits, 3-7-1 weighted sum a multiple of ten. */
export function isValidAbaRouting(value: string): boolean {
  if (!/^[0-9]{9}$/.test(value)) return false;
  const d = [...value].map(Number);
  const sum = 3 * (d[0]! + d[3]! + d[6]!) + 7 * (d[1]! + d[4]! + d[7]!) + (d[2]! + d[5]! + d[8]!);
  return sum % 10 === 0 && value !== '000000000';
}

export const CRYPTO_CHAINS = ['evm', 'xrpl', 'bitcoin'] as const;
export type CryptoChain = (typeof CRYPTO_CHAINS)[number];

/** Address check per chain: EIP-55 checksum when mixed case, XRPL classic base58check, Bitcoin mainnet. */
export function isValidChainAddress(chain: CryptoChain, address: string): boolean {
  if (chain === 'evm') return isEvmAddress(address);
  if (chain === 'xrpl') return isValidClassicAddress(address);
  return bitcoinAddress(address, Network.mainnet);
}
