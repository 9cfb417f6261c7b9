import { decodeAccountID } from 'ripple-address-codec';
import type { TxJson } from '../../providers/xrpl-ledger/signatures.js';
import type { View } from './view.js';

export interface Fees {
  baseFeeDrops: bigint;
  reserveBaseDrops: bigint;
  reserveIncDrops: bigint;
}

/** What a transactor needs besides the view: the fee schedule, the open ledger, how it was signed. */
export interface ApplyContext {
  view: View;
  tx: TxJson;
  fees: Fees;
  ledgerIndex: number;
  /** The account's balance before the fee was taken (rippled's mPriorBalance). */
  priorBalance: bigint;
  signedWithMaster: boolean;
}

/** The XRP an account must keep for itself and `ownerCount` owned objects. */
export const reserve = (fees: Fees, ownerCount: number) => fees.reserveBaseDrops + fees.reserveIncDrops * BigInt(ownerCount);

/** Orders accounts as rippled does: by the 20-byte account id. */
export function compareAccounts(a: string, b: string): number {
  return Buffer.compare(Buffer.from(decodeAccountID(a)), Buffer.from(decodeAccountID(b)));
}
