import { hashes } from 'xrpl';

/** A ledger entry in rippled's JSON form (AccountRoot, SignerList, RippleState), keyed by its index. */
export type Entry = Record<string, unknown> & { LedgerEntryType: string; index: string };
export type AccountRoot = Entry & {
  LedgerEntryType: 'AccountRoot';
  Account: string;
  Balance: string;
  Flags: number;
  OwnerCount: number;
  Sequence: number;
  RegularKey?: string;
};
export type SignerEntry = { SignerEntry: { Account: string; SignerWeight: number } };
export type SignerList = Entry & { LedgerEntryType: 'SignerList'; SignerQuorum: number; SignerEntries: SignerEntry[] };
export type IouAmount = { currency: string; issuer: string; value: string };
export type RippleState = Entry & {
  LedgerEntryType: 'RippleState';
  Balance: IouAmount;
  LowLimit: IouAmount;
  HighLimit: IouAmount;
  Flags: number;
};

/** The account state of one ledger: every entry by index. Copied when a ledger closes. */
export type StateMap = Map<string, Entry>;

export const accountIndex = (address: string) => hashes.hashAccountRoot(address);
export const signerListIndex = (address: string) => hashes.hashSignerListId(address);
export const trustLineIndex = (a: string, b: string, currency: string) => hashes.hashTrustline(a, b, currency);

/**
 * A copy-on-write view over a state, as rippled's ApplyView: a transactor reads through it and
 * writes into it; `commit` moves the writes into the state, and `affectedNodes` describes them
 * as transaction metadata (CreatedNode / ModifiedNode / DeletedNode).
 */
export class View {
  private readonly changes = new Map<string, Entry | null>();

  constructor(private readonly base: StateMap) {}

  read<T extends Entry>(index: string): T | undefined {
    if (this.changes.has(index)) return (this.changes.get(index) ?? undefined) as T | undefined;
    const entry = this.base.get(index);
    return entry ? (structuredClone(entry) as T) : undefined;
  }

  account(address: string): AccountRoot | undefined {
    return this.read<AccountRoot>(accountIndex(address));
  }

  write(entry: Entry): void {
    this.changes.set(entry.index, entry);
  }

  erase(index: string): void {
    this.changes.set(index, null);
  }

  /** Stamps the touched entries with the transaction and returns the metadata nodes. */
  affectedNodes(txHash: string, ledgerIndex: number): Record<string, unknown>[] {
    const nodes: Record<string, unknown>[] = [];
    for (const index of [...this.changes.keys()].sort()) {
      const before = this.base.get(index);
      const after = this.changes.get(index);
      if (!before && !after) continue;
      if (!before && after) {
        Object.assign(after, { PreviousTxnID: txHash, PreviousTxnLgrSeq: ledgerIndex });
        nodes.push({ CreatedNode: { LedgerEntryType: after.LedgerEntryType, LedgerIndex: index, NewFields: fields(after, ['PreviousTxnID', 'PreviousTxnLgrSeq']) } });
      } else if (before && !after) {
        nodes.push({ DeletedNode: { LedgerEntryType: before.LedgerEntryType, LedgerIndex: index, FinalFields: fields(before) } });
      } else if (before && after) {
        const previous: Record<string, unknown> = {};
        for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
          if (key === 'index' || key === 'PreviousTxnID' || key === 'PreviousTxnLgrSeq') continue;
          if (JSON.stringify(before[key]) !== JSON.stringify(after[key])) previous[key] = before[key];
        }
        Object.assign(after, { PreviousTxnID: txHash, PreviousTxnLgrSeq: ledgerIndex });
        nodes.push({
          ModifiedNode: {
            LedgerEntryType: after.LedgerEntryType,
            LedgerIndex: index,
            FinalFields: fields(after, ['PreviousTxnID', 'PreviousTxnLgrSeq']),
            ...(Object.keys(previous).length ? { PreviousFields: previous } : {}),
            PreviousTxnID: before.PreviousTxnID,
            PreviousTxnLgrSeq: before.PreviousTxnLgrSeq,
          },
        });
      }
    }
    return nodes;
  }

  commit(): void {
    for (const [index, entry] of this.changes) {
      if (entry) this.base.set(index, entry);
      else this.base.delete(index);
    }
    this.changes.clear();
  }
}

function fields(entry: Entry, omit: string[] = []): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(entry)) {
    if (key === 'index' || key === 'LedgerEntryType' || omit.includes(key)) continue;
    out[key] = value;
  }
  return out;
}
