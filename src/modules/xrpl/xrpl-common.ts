import { isValidClassicAddress } from 'xrpl';
import type { XrplAccountInfo } from '../../providers/xrpl-ledger/port.js';
import { XrplErrors } from './xrpl-errors.js';


export function checkAddress(address: string, field = 'address'): string {
  if (!isValidClassicAddress(address)) throw XrplErrors.addressInvalid(field);
  return address;
}

/** The account as the API answers it (live from the validated ledger). */
export function accountState(info: XrplAccountInfo | null) {
  if (!info) return { exists: false as const };
  return {
    exists: true as const,
    balanceDrops: info.balanceDrops,
    sequence: info.sequence,
    flags: { ...info.flags } as Record<string, boolean>,
    regularKey: info.regularKey ?? null,
    signerList: info.signerList ?? null,
    ledgerIndex: info.ledgerIndex,
  };
}
export type AccountStateDto = ReturnType<typeof accountState>;
