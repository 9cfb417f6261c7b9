import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { hashes, Wallet } from 'xrpl';
import { inspectSignedBlob, signersOf, type TxJson } from '../../providers/xrpl-ledger/signatures.js';
import { checkAuthorization, signedWithMaster } from './authorization.js';
import type { Fees } from './context.js';
import { ALLOWED_TX_FLAGS } from './flags.js';
import { isApplied, Rejection, TecError, type EngineResult } from './results.js';
import { doApply, isDrops, preflight } from './transactors.js';
import { accountIndex, View, type AccountRoot, type Entry, type StateMap } from './view.js';

/** rippled's standalone genesis account (seed "masterpassphrase"), holding every XRP at start. */
export const GENESIS_SEED = 'snoPBrXtMeMyMHUVTgbuqAfg1SUTb';
const TOTAL_DROPS = 100_000_000_000_000_000n;
const RIPPLE_EPOCH = 946_684_800;

export interface LedgerHeader {
  ledger_index: number;
  ledger_hash: string;
  parent_hash: string;
  account_hash: string;
  transaction_hash: string;
  close_time: number;
  parent_close_time: number;
  total_coins: string;
  close_time_resolution: number;
  close_flags: number;
  transactions: string[];
}

export interface TxRecord {
  hash: string;
  blob: string;
  tx: TxJson;
  meta: Record<string, unknown>;
  result: EngineResult;
  ledgerIndex: number;
  validated: boolean;
}

export interface SubmitOutcome {
  result: EngineResult;
  hash: string;
  tx: TxJson;
  applied: boolean;
  /** Held for a later ledger (terPRE_SEQ), as rippled holds a transaction whose prior ones are missing. */
  held: boolean;
}

/** A submit the stand-in refuses before it reaches the engine (rippled's "invalidTransaction"). */
export class InvalidTransaction extends Error {}

/**
 * One change to the ledger, as the write-ahead journal keeps it: a submitted blob that applied
 * (or was held for a later ledger), with its result, or a ledger close with its close time.
 * `n` numbers the changes since genesis; a snapshot says the last one it holds.
 */
export type LedgerJournalEntry =
  | { n: number; t: 'submit'; blob: string; hash: string; result: EngineResult }
  | { n: number; t: 'close'; index: number; closeTime: number };

/** The journal cannot be re-applied to the saved state as it was written. */
export class LedgerReplayMismatch extends Error {}

export interface LedgerSnapshot {
  version: 1;
  /** The last journal entry this state includes (absent in files written before the journal). */
  journalSeq?: number;
  /** Transactions held for a later ledger (terPRE_SEQ). */
  held?: string[];
  openIndex: number;
  totalCoins: string;
  lastHeader: LedgerHeader;
  open: Entry[];
  validated: Entry[];
  openTxs: string[];
  headers: LedgerHeader[];
  txs: TxRecord[];
}

export interface StandInLedgerOptions {
  baseFeeDrops?: bigint;
  reserveBaseDrops?: bigint;
  reserveIncDrops?: bigint;
  /** How many closed ledgers keep their state for queries by index (default 16). */
  keepLedgers?: number;
  now?: () => number;
}

const MAX_HELD = 1000;

/**
 * The ledger engine of the stand-in: an open ledger that transactions apply to as they are
 * submitted (rippled's tentative application, final here because there is no consensus), and
 * closed ledgers, the last of which is validated. State lives in memory for the process's life.
 */
export class StandInLedger extends EventEmitter {
  readonly fees: Fees;
  private open: StateMap = new Map();
  private validated: StateMap;
  private readonly history = new Map<number, StateMap>();
  private readonly headers = new Map<number, LedgerHeader>();
  private readonly txs = new Map<string, TxRecord>();
  private openTxs: string[] = [];
  private held: { blob: string; tx: TxJson; hash: string }[] = [];
  private totalCoins = TOTAL_DROPS;
  openIndex: number;
  private lastHeader: LedgerHeader;
  readonly genesis = Wallet.fromSeed(GENESIS_SEED, { algorithm: 'secp256k1' as never });
  private readonly keep: number;
  private readonly now: () => number;
  /** The number of the last change (journal entry) applied to this ledger. */
  journalSeq = 0;
  private journal: ((entry: LedgerJournalEntry, durable: boolean) => void) | undefined;

  constructor(options: StandInLedgerOptions = {}) {
    super();
    this.fees = {
      baseFeeDrops: options.baseFeeDrops ?? 10n,
      reserveBaseDrops: options.reserveBaseDrops ?? 1_000_000n,
      reserveIncDrops: options.reserveIncDrops ?? 200_000n,
    };
    this.keep = options.keepLedgers ?? 16;
    this.now = options.now ?? Date.now;
    const root: AccountRoot = {
      LedgerEntryType: 'AccountRoot', index: accountIndex(this.genesis.classicAddress), Account: this.genesis.classicAddress,
      Balance: TOTAL_DROPS.toString(), Flags: 0, OwnerCount: 0, Sequence: 1,
      PreviousTxnID: '0'.repeat(64), PreviousTxnLgrSeq: 0,
    };
    this.open.set(root.index, root);
    this.openIndex = 1;
    this.lastHeader = { ledger_index: 0, ledger_hash: '0'.repeat(64), close_time: 0 } as LedgerHeader;
    this.validated = this.open;
    this.close(); // ledger 1 holds the genesis account; ledger 2 is open
  }

  get validatedIndex(): number {
    return this.lastHeader.ledger_index;
  }

  get validatedHeader(): LedgerHeader {
    return this.lastHeader;
  }

  /** The state of a ledger: 'current' (open), 'validated'/'closed', or a closed ledger's index. */
  stateAt(which: 'current' | 'validated' | number): { state: StateMap; index: number; header?: LedgerHeader } | undefined {
    if (which === 'current' || which === this.openIndex) return { state: this.open, index: this.openIndex };
    if (which === 'validated' || which === this.validatedIndex) return { state: this.validated, index: this.validatedIndex, header: this.lastHeader };
    const old = this.history.get(which);
    return old && { state: old, index: which, header: this.headers.get(which) };
  }

  header(index: number): LedgerHeader | undefined {
    return this.headers.get(index);
  }

  headerByHash(hash: string): LedgerHeader | undefined {
    for (const header of this.headers.values()) if (header.ledger_hash === hash.toUpperCase()) return header;
    return undefined;
  }

  transaction(hash: string): TxRecord | undefined {
    return this.txs.get(hash.toUpperCase());
  }

  /** Submits a signed blob, as rippled's `submit`; throws InvalidTransaction for what fails local checks. */
  submit(blob: string): SubmitOutcome {
    const inspected = inspectSignedBlob(blob);
    if (!inspected.ok) {
      if (inspected.reason === 'bad_signature' && inspected.fault === 'malformed') {
        return { result: 'temBAD_SIGNATURE', hash: inspected.hash, tx: inspected.tx, applied: false, held: false };
      }
      throw new InvalidTransaction(inspected.reason === 'bad_signature' ? `fails local checks: ${inspected.message}` : inspected.message);
    }
    const { tx, hash } = inspected;
    if (this.openTxs.includes(hash)) return { result: 'tefALREADY', hash, tx, applied: false, held: false };
    let outcome = this.apply(blob.toUpperCase(), tx, hash);
    if (outcome.result === 'terPRE_SEQ' && !this.held.some((h) => h.hash === hash)) {
      if (this.held.length >= MAX_HELD) this.held.shift();
      this.held.push({ blob: blob.toUpperCase(), tx, hash });
      outcome = { ...outcome, held: true };
    } else if (outcome.applied) this.retryHeld(tx.Account);
    // Durable before the caller can answer: what the stand-in accepted survives a crash.
    if (outcome.applied || outcome.held) this.record({ t: 'submit', blob: blob.toUpperCase(), hash, result: outcome.result }, true);
    return outcome;
  }

  /**
   * Sends every later change to `journal` (synchronously, before the call that made it returns);
   * `durable` asks for it to reach the disk first (every submit, and closes that held transactions).
   */
  attachJournal(journal: (entry: LedgerJournalEntry, durable: boolean) => void): void {
    this.journal = journal;
  }

  private record(change: LedgerJournalEntry extends infer E ? (E extends LedgerJournalEntry ? Omit<E, 'n'> : never) : never, durable: boolean): void {
    this.journalSeq += 1;
    this.journal?.({ n: this.journalSeq, ...change } as LedgerJournalEntry, durable);
  }

  /**
   * Re-applies journal entries written after the state this ledger holds (those numbered above
   * `journalSeq`), in order, with their close times: the same transactions get the same results
   * in the same ledgers. Throws LedgerReplayMismatch when an entry does not apply as it did.
   */
  replay(entries: readonly LedgerJournalEntry[]): number {
    const journal = this.journal;
    this.journal = undefined;
    let applied = 0;
    try {
      for (const entry of entries) {
        if (entry.n <= this.journalSeq) continue;
        if (entry.n !== this.journalSeq + 1) throw new LedgerReplayMismatch(`journal entry ${entry.n} follows ${this.journalSeq}: entries are missing`);
        if (entry.t === 'submit') {
          const outcome = this.submit(entry.blob);
          if (outcome.result !== entry.result || outcome.hash !== entry.hash) {
            throw new LedgerReplayMismatch(`transaction ${entry.hash} applied as ${outcome.result}, journaled as ${entry.result}`);
          }
        } else {
          if (entry.index !== this.openIndex) throw new LedgerReplayMismatch(`journal closes ledger ${entry.index}, the open ledger is ${this.openIndex}`);
          this.close(entry.closeTime);
        }
        this.journalSeq = entry.n;
        applied += 1;
      }
    } finally {
      this.journal = journal;
    }
    return applied;
  }

  private apply(blob: string, tx: TxJson, hash: string): SubmitOutcome {
    const fail = (result: EngineResult): SubmitOutcome => ({ result, hash, tx, applied: false, held: false });
    try {
      this.preclaim(tx);
    } catch (error) {
      if (error instanceof Rejection) return fail(error.result);
      throw error;
    }
    const fee = BigInt(tx.Fee as string);
    const charge = (view: View): bigint => {
      const account = view.account(tx.Account)!;
      const prior = BigInt(account.Balance);
      account.Balance = (prior - fee).toString();
      account.Sequence += 1;
      view.write(account);
      return prior;
    };
    let view = new View(this.open);
    const priorBalance = charge(view);
    let result: EngineResult = 'tesSUCCESS';
    try {
      doApply({ view, tx, fees: this.fees, ledgerIndex: this.openIndex, priorBalance, signedWithMaster: signedWithMaster(tx) });
    } catch (error) {
      if (error instanceof TecError) result = error.result;
      else if (error instanceof Rejection) return fail(error.result);
      else throw error;
    }
    if (result !== 'tesSUCCESS') {
      view = new View(this.open);
      charge(view);
    }
    const meta: Record<string, unknown> = {
      AffectedNodes: view.affectedNodes(hash, this.openIndex),
      TransactionIndex: this.openTxs.length,
      TransactionResult: result,
    };
    if (tx.TransactionType === 'Payment' && result === 'tesSUCCESS') meta.delivered_amount = tx.Amount;
    view.commit();
    this.totalCoins -= fee;
    this.txs.set(hash, { hash, blob, tx, meta, result, ledgerIndex: this.openIndex, validated: false });
    this.openTxs.push(hash);
    return { result, hash, tx, applied: isApplied(result), held: false };
  }

  /** Checks against the open ledger before applying (rippled's preflight and preclaim). */
  private preclaim(tx: TxJson): void {
    const allowed = ALLOWED_TX_FLAGS[tx.TransactionType];
    if (allowed === undefined) throw new Rejection('temUNKNOWN');
    const flags = tx.Flags ?? 0;
    if (typeof flags !== 'number' || (flags & ~allowed) !== 0) throw new Rejection('temINVALID_FLAG');
    if (!isDrops(tx.Fee)) throw new Rejection('temBAD_FEE');
    if (typeof tx.Sequence !== 'number' || tx.Sequence === 0) throw new Rejection(tx.TicketSequence !== undefined ? 'temUNKNOWN' : 'temBAD_SEQUENCE');
    preflight(tx);
    const view = new View(this.open);
    const account = view.account(tx.Account);
    if (!account) throw new Rejection('terNO_ACCOUNT');
    if (tx.Sequence < account.Sequence) throw new Rejection('tefPAST_SEQ');
    if (tx.Sequence > account.Sequence) throw new Rejection('terPRE_SEQ');
    if (typeof tx.LastLedgerSequence === 'number' && tx.LastLedgerSequence < this.openIndex) throw new Rejection('tefMAX_LEDGER');
    const required = this.fees.baseFeeDrops * BigInt(1 + signersOf(tx).length);
    const fee = BigInt(tx.Fee as string);
    if (fee < required) throw new Rejection('telINSUF_FEE_P');
    if (fee > BigInt(account.Balance)) throw new Rejection('terINSUF_FEE_B');
    checkAuthorization(view, tx);
  }

  /** Applies held transactions whose turn has come; drops those that can no longer apply. */
  private retryHeld(account?: string): void {
    let progress = true;
    while (progress) {
      progress = false;
      for (const item of this.held.filter((h) => account === undefined || h.tx.Account === account)) {
        const outcome = this.apply(item.blob, item.tx, item.hash);
        if (outcome.result === 'terPRE_SEQ') continue;
        this.held = this.held.filter((h) => h !== item);
        if (outcome.applied) progress = true;
      }
    }
  }

  /** Closes the open ledger: it becomes the validated ledger, and the next one opens. */
  close(replayedCloseTime?: number): LedgerHeader {
    const index = this.openIndex;
    const closeTime = replayedCloseTime ?? Math.max(Math.floor(this.now() / 1000) - RIPPLE_EPOCH, this.lastHeader.close_time + 1);
    // Written ahead; durable when the ledger validates transactions (an empty ledger lost in a
    // power cut closes again after the restart, with another close time).
    if (index > 1) this.record({ t: 'close', index, closeTime }, this.openTxs.length > 0);
    // The state digest changes only when a transaction changed the state.
    const stateHash = this.openTxs.length || !this.lastHeader.account_hash
      ? sha512Half(JSON.stringify([...this.open.entries()].sort(([a], [b]) => (a < b ? -1 : 1))))
      : this.lastHeader.account_hash;
    const txHash = this.openTxs.length ? sha512Half(this.openTxs.join('')) : '0'.repeat(64);
    const header: LedgerHeader = {
      ledger_index: index,
      ledger_hash: '',
      parent_hash: this.lastHeader.ledger_hash,
      account_hash: stateHash,
      transaction_hash: txHash,
      close_time: closeTime,
      parent_close_time: this.lastHeader.close_time,
      total_coins: this.totalCoins.toString(),
      close_time_resolution: 10,
      close_flags: 0,
      transactions: [...this.openTxs],
    };
    header.ledger_hash = hashes.hashLedgerHeader({ ...header, ledger_index: index } as never).toUpperCase();
    this.validated = this.open;
    // Entries are never changed in place (a View writes new objects), so ledgers share them.
    this.open = new Map(this.validated);
    this.history.set(index, this.validated);
    this.headers.set(index, header);
    for (const old of this.history.keys()) if (old <= index - this.keep) this.history.delete(old);
    for (const hash of this.openTxs) {
      const record = this.txs.get(hash)!;
      record.validated = true;
    }
    const closedTxs = this.openTxs.map((h) => this.txs.get(h)!);
    this.openTxs = [];
    this.lastHeader = header;
    this.openIndex = index + 1;
    this.held = this.held.filter((h) => typeof h.tx.LastLedgerSequence !== 'number' || h.tx.LastLedgerSequence >= this.openIndex);
    this.retryHeld();
    this.emit('ledgerClosed', header, closedTxs);
    return header;
  }

  /**
   * What survives a restart (the optional state file): the open and validated state, every
   * ledger header and transaction. Older ledgers' states (queries by index) are not kept.
   */
  snapshot(): LedgerSnapshot {
    return {
      version: 1,
      journalSeq: this.journalSeq,
      held: this.held.map((h) => h.blob),
      openIndex: this.openIndex,
      totalCoins: this.totalCoins.toString(),
      lastHeader: this.lastHeader,
      open: [...this.open.values()],
      validated: [...this.validated.values()],
      openTxs: this.openTxs,
      headers: [...this.headers.values()],
      txs: [...this.txs.values()],
    };
  }

  restore(snapshot: LedgerSnapshot): void {
    if (snapshot.version !== 1) throw new Error('Unknown stand-in ledger snapshot version');
    const toMap = (entries: Entry[]) => new Map(entries.map((e) => [e.index, e]));
    this.open = toMap(snapshot.open);
    this.validated = toMap(snapshot.validated);
    this.openIndex = snapshot.openIndex;
    this.totalCoins = BigInt(snapshot.totalCoins);
    this.lastHeader = snapshot.lastHeader;
    this.openTxs = snapshot.openTxs;
    this.headers.clear();
    for (const header of snapshot.headers) this.headers.set(header.ledger_index, header);
    this.history.clear();
    this.history.set(this.lastHeader.ledger_index, this.validated);
    this.txs.clear();
    for (const record of snapshot.txs) this.txs.set(record.hash, record);
    this.journalSeq = snapshot.journalSeq ?? 0;
    this.held = [];
    for (const blob of snapshot.held ?? []) {
      const inspected = inspectSignedBlob(blob);
      if (inspected.ok) this.held.push({ blob, tx: inspected.tx, hash: inspected.hash });
    }
  }

  /** Pays `drops` from the genesis account with a signed Payment, as a faucet does. */
  fund(destination: string, drops: bigint): SubmitOutcome {
    const genesis = this.open.get(accountIndex(this.genesis.classicAddress)) as AccountRoot;
    const { tx_blob } = this.genesis.sign({
      TransactionType: 'Payment', Account: this.genesis.classicAddress, Destination: destination, Amount: drops.toString(),
      Fee: this.fees.baseFeeDrops.toString(), Sequence: genesis.Sequence, LastLedgerSequence: this.openIndex + 20, Flags: 0,
    });
    return this.submit(tx_blob);
  }
}

function sha512Half(text: string): string {
  return createHash('sha512').update(text).digest().subarray(0, 32).toString('hex').toUpperCase();
}
