import { renameSync } from 'node:fs';
import type { EIP1193RequestFn } from 'viem';
import { WriteAheadJournal } from '../../write-ahead-journal.js';

export const EVM_JOURNAL_FILE = 'evm-local-chain.journal';

/** What makes the chain: a journal written under other settings cannot be replayed. */
export interface ChainSettings {
  chainId: number;
  hardfork: string;
  /** The funded development accounts (lower case) and their genesis balance. */
  accounts: string[];
  balance: string;
  baseFeePerGas: string;
  blockGasLimit: string;
}

/** A reset: the chain started empty although the journal held blocks; records naming them are stale. */
export interface ChainReset {
  at: string;
  reason: string;
  /** The last block the lost chain had reached (as journaled), 0 when unknown. */
  lostBlockNumber: number;
  /** Where the unreplayable journal was moved. */
  movedTo?: string;
}

export interface GenesisEntry {
  t: 'genesis';
  version: 1;
  settings: ChainSettings;
  /** Seconds since the Unix epoch: the genesis block's time, fixed so every replay makes the same blocks. */
  genesisTime: number;
  genesisHash: string;
  /** Every reset this DATA_DIR's chain went through, oldest first (kept across later starts). */
  resets: ChainReset[];
}

export interface CallEntry {
  t: 'call';
  n: number;
  method: string;
  params: unknown;
  /** The time of the first block the call mined, if it mined one. */
  timestamp?: number;
  /** The chain head after the call. */
  head: { number: number; hash: string };
  /** The call failed (it is replayed, and must fail again). */
  failed?: boolean;
}

export type EvmJournalEntry = GenesisEntry | CallEntry;

/** Calls that change the chain: journaled before they are answered, replayed at start. */
export function changesState(method: string): boolean {
  if (method === 'eth_sendRawTransaction' || method === 'eth_sendTransaction') return true;
  if (method === 'hardhat_getAutomine' || method === 'hardhat_metadata' || method === 'hardhat_getStackTraceFailuresCount') return false;
  return method.startsWith('evm_') || method.startsWith('hardhat_');
}

/** Mining on a timer makes blocks no call asked for, which the journal cannot replay. */
const REFUSED = new Set(['evm_setIntervalMining', 'hardhat_reset']);

type Request = (args: { method: string; params?: unknown }) => Promise<unknown>;

interface Head {
  number: number;
  hash: string;
  timestamp: number;
}

async function head(request: Request, which: 'latest' | number = 'latest'): Promise<Head> {
  const block = (await request({ method: 'eth_getBlockByNumber', params: [typeof which === 'number' ? `0x${which.toString(16)}` : which, false] })) as {
    number: string;
    hash: string;
    timestamp: string;
  };
  return { number: Number(block.number), hash: block.hash, timestamp: Number(block.timestamp) };
}

export class ReplayMismatch extends Error {}

/**
 * The local chain's write-ahead journal: every state-changing JSON-RPC call is applied, then
 * appended with the head it produced (and the time of the block it mined), and answered once
 * that entry is on disk. Calls that change state run one at a time; the next one starts when
 * the entry is written, not when it is flushed, so calls made together share one fsync (group
 * commit), run off the main thread. A read is answered after every change it could have seen is
 * on disk too: nothing is told of a block a crash could still take back.
 */
export class ChainJournal {
  private queue: Promise<unknown> = Promise.resolve();
  private n: number;
  /** The head after the last journaled call (calls that change state run one at a time, here). */
  private lastHead: Head | undefined;

  constructor(
    private readonly journal: WriteAheadJournal<EvmJournalEntry>,
    lastN: number,
  ) {
    this.n = lastN;
  }

  /** The request function the chain's clients use: reads pass through, changes are journaled. */
  wrap(request: Request): EIP1193RequestFn {
    return (async ({ method, params }: { method: string; params?: unknown }) => {
      if (!changesState(method)) {
        const result = await request({ method, params });
        await this.journal.durable();
        return result;
      }
      if (REFUSED.has(method)) {
        throw Object.assign(new Error(`${method} is not supported by the durable local chain`), { code: -32004 });
      }
      const run = this.queue.then(() => this.record(request, method, params));
      this.queue = run.catch(() => undefined);
      const outcome = await run;
      await outcome.durable;
      if (outcome.failed) throw outcome.failure;
      return outcome.result;
    }) as EIP1193RequestFn;
  }

  private async record(request: Request, method: string, params: unknown): Promise<{ result?: unknown; failed: boolean; failure?: unknown; durable: Promise<void> }> {
    const before = this.lastHead ?? (await head(request));
    // Kept only from a call that ran to its end (a head read that threw leaves it unknown).
    this.lastHead = undefined;
    let result: unknown;
    let failure: unknown;
    let failed = false;
    try {
      result = await request({ method, params });
    } catch (error) {
      failed = true;
      failure = error;
    }
    const after = await head(request);
    this.lastHead = after;
    let durable: Promise<void> = this.journal.durable();
    // A failed call that changed nothing needs no replay.
    if (!failed || after.hash !== before.hash) {
      const timestamp = after.number > before.number ? (after.number === before.number + 1 ? after.timestamp : (await head(request, before.number + 1)).timestamp) : undefined;
      this.n += 1;
      const entry: CallEntry = {
        t: 'call',
        n: this.n,
        method,
        params: params ?? [],
        ...(timestamp !== undefined ? { timestamp } : {}),
        head: { number: after.number, hash: after.hash },
        ...(failed ? { failed: true } : {}),
      };
      durable = this.journal.appendGrouped(entry);
    }
    // Not awaited here: the next call may run while this entry is flushed.
    durable.catch(() => undefined);
    return { result, failed, failure, durable };
  }

  /** Closes the journal once every entry written is on disk. */
  async close(): Promise<void> {
    await this.queue;
    await this.journal.durable().catch(() => undefined);
    this.journal.close();
  }
}

/**
 * Re-applies the journaled calls to a fresh chain (made with the journal's genesis time): each
 * mined block gets its journaled time, and after each call the head must be the journaled one.
 * Throws ReplayMismatch at the first difference.
 */
export async function replay(request: Request, entries: readonly CallEntry[]): Promise<void> {
  for (const entry of entries) {
    if (entry.timestamp !== undefined) await request({ method: 'evm_setNextBlockTimestamp', params: [entry.timestamp] });
    let failed = false;
    try {
      await request({ method: entry.method, params: entry.params });
    } catch (error) {
      if (!entry.failed) throw new ReplayMismatch(`call ${entry.n} (${entry.method}) failed: ${(error as Error).message}`);
      failed = true;
    }
    if (entry.failed && !failed) throw new ReplayMismatch(`call ${entry.n} (${entry.method}) succeeded; it had failed`);
    const now = await head(request);
    if (now.number !== entry.head.number || now.hash !== entry.head.hash) {
      throw new ReplayMismatch(`after call ${entry.n} (${entry.method}) the head is block ${now.number} ${now.hash}, journaled ${entry.head.number} ${entry.head.hash}`);
    }
  }
}

/** Moves an unreplayable journal aside (kept for inspection) and answers where. */
export function moveAside(file: string, at: Date): string {
  const target = `${file}.reset-${at.toISOString().replace(/[:.]/g, '-')}`;
  renameSync(file, target);
  return target;
}
