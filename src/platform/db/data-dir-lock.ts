import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The embedded database admits one process at a time: a second one (the CLI while the service
 * runs, or a second service) would write to files the first keeps in memory, and its writes
 * would be lost. Whoever opens DATA_DIR claims `DATA_DIR/bastion.lock` (pid, role, start time);
 * a live holder makes the claim fail with a message naming it. A lock whose process is gone
 * (a crash, a kill -9) is taken over.
 */
export interface LockHolder {
  pid: number;
  role: 'service' | 'cli';
  startedAt: string;
}

export class DataDirBusyError extends Error {
  constructor(
    readonly holder: LockHolder,
    dataDir: string,
  ) {
    const who = holder.role === 'service' ? 'the Bastion service' : 'a Bastion CLI command';
    super(
      `${who} (pid ${holder.pid}, since ${holder.startedAt}) has the embedded database in ${dataDir} open; ` +
        'it admits one process at a time: stop it first (or use DATABASE_URL)',
    );
    this.name = 'DataDirBusyError';
  }
}

const lockPath = (dataDir: string) => join(dataDir, 'bastion.lock');

/** Whether a process with this id exists (EPERM: it does, under another user). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists, under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The live process holding DATA_DIR, if any. */
export function lockHolder(dataDir: string): LockHolder | undefined {
  let holder: LockHolder;
  try {
    holder = JSON.parse(readFileSync(lockPath(dataDir), 'utf8')) as LockHolder;
  } catch {
    return undefined;
  }
  return Number.isInteger(holder.pid) && holder.pid !== process.pid && processAlive(holder.pid) ? holder : undefined;
}

/** Claims DATA_DIR for this process; throws DataDirBusyError when a live process holds it. Answers the release. */
export function claimDataDir(dataDir: string, role: LockHolder['role'], now = new Date()): () => void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const me: LockHolder = { pid: process.pid, role, startedAt: now.toISOString() };
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(lockPath(dataDir), JSON.stringify(me), { flag: 'wx', mode: 0o600 });
      return () => {
        const current = readHolder(dataDir);
        if (current?.pid === process.pid) rmSync(lockPath(dataDir), { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = lockHolder(dataDir);
      if (holder) throw new DataDirBusyError(holder, dataDir);
      rmSync(lockPath(dataDir), { force: true }); // stale: its process is gone
    }
  }
  throw new Error(`could not claim ${lockPath(dataDir)}`);
}

function readHolder(dataDir: string): LockHolder | undefined {
  try {
    return JSON.parse(readFileSync(lockPath(dataDir), 'utf8')) as LockHolder;
  } catch {
    return undefined;
  }
}
