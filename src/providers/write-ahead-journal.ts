import { closeSync, fsync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { processAlive } from '../platform/db/data-dir-lock.js';

/** The journal cannot be read back: a line other than the last is not JSON. */
export class JournalCorrupt extends Error {
  constructor(file: string, line: number) {
    super(`${file}: line ${line} is not a journal entry`);
    this.name = 'JournalCorrupt';
  }
}

/**
 * An append-only journal of JSON lines for the local development chains (the XRPL stand-in and
 * the in-process EVM chain): a change is appended, and flushed to disk (fsync) when durable,
 * before the chain answers the call that made it. `append` is synchronous (nothing else runs
 * between the append and the answer); `appendGrouped` writes at once and flushes in the
 * background, one fsync for every entry written while the previous one ran (group commit), so
 * the main thread does not wait for the disk. A last line cut short by a crash (no newline, not
 * JSON) is dropped at open; any other unreadable line makes the journal corrupt.
 */
export class WriteAheadJournal<E> {
  private fd: number;
  /** The fsync running now (it covers every entry written before it started). */
  private syncing: Promise<void> | undefined;
  /** The fsync to start when `syncing` ends: it covers the entries written meanwhile. */
  private nextSync: Promise<void> | undefined;

  private constructor(readonly file: string, fd: number, private readonly release: () => void) {
    this.fd = fd;
  }

  /**
   * Opens (or creates) the journal and reads the entries it holds. One process writes a journal:
   * `<file>.lock` names it, and another live process holding it makes this throw JournalBusy.
   */
  static open<E>(file: string): { journal: WriteAheadJournal<E>; entries: E[] } {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    const release = claim(`${file}.lock`);
    try {
      return WriteAheadJournal.read<E>(file, release);
    } catch (error) {
      release();
      throw error;
    }
  }

  private static read<E>(file: string, release: () => void): { journal: WriteAheadJournal<E>; entries: E[] } {
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    const lines = text.split('\n');
    const complete = text.endsWith('\n') || text === '' ? lines.slice(0, -1) : lines;
    const entries: E[] = [];
    let kept = 0;
    for (const [i, line] of complete.entries()) {
      try {
        entries.push(JSON.parse(line) as E);
        kept += Buffer.byteLength(line) + 1;
      } catch {
        // Only the last line may be torn (a crash in the middle of its write).
        if (i === complete.length - 1 && !text.endsWith('\n')) break;
        throw new JournalCorrupt(file, i + 1);
      }
    }
    const fd = openSync(file, 'a+', 0o600);
    const journal = new WriteAheadJournal<E>(file, fd, release);
    if (kept !== Buffer.byteLength(text)) journal.rewrite(entries);
    return { journal, entries };
  }

  /** Appends one entry; `durable` flushes it (and every entry before it) to disk before returning. */
  append(entry: E, durable = true): void {
    writeSync(this.fd, JSON.stringify(entry) + '\n');
    if (durable) fsyncSync(this.fd);
  }

  /**
   * Appends one entry now (in order with every other append) and answers once it, and every
   * entry before it, is on disk. Concurrent appends share an fsync, run off the main thread.
   */
  appendGrouped(entry: E): Promise<void> {
    writeSync(this.fd, JSON.stringify(entry) + '\n');
    return this.flush();
  }

  /** Settles when every entry appended so far is on disk (at once when nothing waits for a flush). */
  durable(): Promise<void> {
    return this.nextSync ?? this.syncing ?? Promise.resolve();
  }

  private flush(): Promise<void> {
    if (!this.syncing) {
      const fd = this.fd;
      const run = new Promise<void>((resolve, reject) => fsync(fd, (error) => (error ? reject(error) : resolve())));
      this.syncing = run;
      void run.then(
        () => this.syncDone(run),
        () => this.syncDone(run),
      );
      return run;
    }
    // An fsync that started before this write may not cover it: the next one does.
    this.nextSync ??= this.syncing.then(
      () => undefined,
      () => undefined,
    ).then(() => {
      this.nextSync = undefined;
      return this.flush();
    });
    return this.nextSync;
  }

  private syncDone(run: Promise<void>): void {
    if (this.syncing === run) this.syncing = undefined;
  }

  /** Replaces the whole journal with `entries`, atomically (a new file renamed over the old one). */
  rewrite(entries: readonly E[]): void {
    const temp = `${this.file}.${process.pid}.tmp`;
    const fd = openSync(temp, 'w', 0o600);
    try {
      if (entries.length) writeSync(fd, entries.map((e) => JSON.stringify(e)).join('\n') + '\n');
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, this.file);
    syncDirectory(this.file);
    closeSync(this.fd);
    this.fd = openSync(this.file, 'a+', 0o600);
  }

  close(): void {
    if (this.fd < 0) return;
    closeSync(this.fd);
    this.fd = -1;
    this.release();
  }
}

/** Another live process writes this journal. */
export class JournalBusy extends Error {
  constructor(file: string, readonly pid: number) {
    super(`${file} is held by process ${pid}: each process needs its own DATA_DIR for the local chains`);
    this.name = 'JournalBusy';
  }
}

/** Claims `lock` for this process (a lock left by a dead process, or by this one, is taken over). */
function claim(lock: string): () => void {
  let holder: number | undefined;
  try {
    holder = Number(JSON.parse(readFileSync(lock, 'utf8')).pid);
  } catch {
    holder = undefined;
  }
  if (holder !== undefined && Number.isInteger(holder) && holder !== process.pid && processAlive(holder)) throw new JournalBusy(lock.replace(/\.lock$/, ''), holder);
  writeFileSync(lock, JSON.stringify({ pid: process.pid }), { mode: 0o600 });
  return () => {
    try {
      if (Number(JSON.parse(readFileSync(lock, 'utf8')).pid) === process.pid) rmSync(lock, { force: true });
    } catch {
      // already gone
    }
  };
}

/** Writes `text` to `file` atomically and durably (temp file, fsync, rename, fsync of the directory). */
export function writeFileDurably(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.tmp`;
  const fd = openSync(temp, 'w', 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, file);
  syncDirectory(file);
}

function syncDirectory(file: string): void {
  const fd = openSync(dirname(file), 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
