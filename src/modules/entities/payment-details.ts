import { PaymentMethodErrors } from './errors.js';
import type { PaymentDetailsInput } from './payment-schemas.js';
import type { PaymentMethodKind } from './table.js';
import { isCurrencyCode, isValidAbaRouting, isValidChainAddress, normalizeBic, normalizeIban, type CryptoChain } from './validation.js';

/** Fields sealed at rest and masked in answers. */
export const SENSITIVE_FIELDS = ['iban', 'accountNumber'] as const;

export interface PreparedDetails {
  currency: string;
  /** Stored in clear. */
  clear: Record<string, string>;
  /** Sealed; answered masked except to holders of manage_payment_methods. */
  sensitive: Record<string, string>;
}

/** The kind a details object is (the schema admits exactly one shape per kind). */
export function kindOf(details: PaymentDetailsInput): PaymentMethodKind {
  if ('chain' in details) return 'crypto';
  if ('accountType' in details) return 'ach';
  return 'bank_wire';
}

function defined(fields: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(fields).filter((e): e is [string, string] => e[1] !== undefined));
}

/** Validates a method's details beyond their shape (checksums, codes) and splits what is sealed. */
export function prepareDetails(details: PaymentDetailsInput): PreparedDetails {
  const kind = kindOf(details);
  if (kind === 'crypto') {
    const d = details as { chain: CryptoChain; address: string; asset: string; destinationTag?: string };
    if (!isValidChainAddress(d.chain, d.address)) throw PaymentMethodErrors.addressInvalid(d.chain);
    if (d.destinationTag !== undefined && (d.chain !== 'xrpl' || Number(d.destinationTag) > 4_294_967_295)) {
      throw PaymentMethodErrors.accountInvalid('details.destinationTag is an XRPL field of at most 4294967295');
    }
    return { currency: d.asset, clear: defined({ chain: d.chain, address: d.address, asset: d.asset, destinationTag: d.destinationTag }), sensitive: {} };
  }
  if (kind === 'ach') {
    const d = details as { accountHolderName: string; accountNumber: string; routingNumber: string; accountType: string; bankName: string };
    if (!isValidAbaRouting(d.routingNumber)) throw PaymentMethodErrors.routingInvalid();
    return {
      currency: 'USD',
      clear: { accountHolderName: d.accountHolderName.trim(), routingNumber: d.routingNumber, accountType: d.accountType, bankName: d.bankName.trim() },
      sensitive: { accountNumber: d.accountNumber },
    };
  }
  const d = details as {
    accountHolderName: string;
    iban?: string;
    accountNumber?: string;
    routingNumber?: string;
    bic: string;
    bankName: string;
    bankAddress?: string;
    currency: string;
  };
  if ((d.iban === undefined) === (d.accountNumber === undefined)) throw PaymentMethodErrors.accountInvalid('details: give exactly one of iban and accountNumber');
  const iban = d.iban === undefined ? undefined : normalizeIban(d.iban);
  if (d.iban !== undefined && !iban) throw PaymentMethodErrors.ibanInvalid();
  const bic = normalizeBic(d.bic);
  if (!bic) throw PaymentMethodErrors.bicInvalid();
  if (d.routingNumber !== undefined && !isValidAbaRouting(d.routingNumber)) throw PaymentMethodErrors.routingInvalid();
  if (!isCurrencyCode(d.currency)) throw PaymentMethodErrors.currencyInvalid();
  return {
    currency: d.currency,
    clear: defined({
      accountHolderName: d.accountHolderName.trim(),
      routingNumber: d.routingNumber,
      bic,
      bankName: d.bankName.trim(),
      bankAddress: d.bankAddress?.trim(),
    }),
    sensitive: defined({ iban, accountNumber: d.accountNumber }),
  };
}

export function mask(value: string): string {
  return `****${value.slice(-4)}`;
}
