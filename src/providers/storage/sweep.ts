import type { BlobStore } from './port.js';

/** One module's answer to "does any of my rows point at this blob?" (across tenants). */
export interface BlobReferenceCheck {
  name: string;
  isReferenced(key: string): Promise<boolean>;
}

export interface SweepOptions {
  /** Only blobs last written before now minus this are candidates (a day: puts precede their rows). */
  olderThanMs: number;
  now?: Date;
  /**
   * Every module that keeps blob keys in its rows. A blob is kept when any says yes; with none
   * given, no blob counts as referenced, and every blob older than the limit is removed.
   */
  references: readonly BlobReferenceCheck[];
  /** Count what would go, remove nothing. */
  dryRun?: boolean;
}

export interface SweepResult {
  /** The checks consulted, by module name: the result is only as complete as this list. */
  checkedBy: string[];
  scanned: number;
  /** Newer than the limit: left alone, whatever references them. */
  young: number;
  referenced: number;
  removed: number;
  removedBytes: number;
  dryRun: boolean;
}

/**
 * Removes orphan blobs: older than the limit and referenced by no module. Each candidate is
 * looked at again just before it goes, so a put of the same content during the sweep (which
 * renews the blob's age) saves it.
 */
export async function sweepOrphans(store: BlobStore, options: SweepOptions): Promise<SweepResult> {
  if (!(options.olderThanMs > 0)) throw new RangeError('olderThanMs must be positive');
  const cutoff = (options.now ?? new Date()).getTime() - options.olderThanMs;
  const result: SweepResult = {
    checkedBy: options.references.map((r) => r.name),
    scanned: 0,
    young: 0,
    referenced: 0,
    removed: 0,
    removedBytes: 0,
    dryRun: options.dryRun ?? false,
  };
  for await (const blob of store.list()) {
    result.scanned++;
    if (blob.lastModified.getTime() >= cutoff) {
      result.young++;
      continue;
    }
    let referenced = false;
    for (const check of options.references) {
      if (await check.isReferenced(blob.key)) {
        referenced = true;
        break;
      }
    }
    if (referenced) {
      result.referenced++;
      continue;
    }
    const now = await store.head(blob.key);
    if (!now) continue;
    if (now.lastModified.getTime() >= cutoff) {
      result.young++;
      continue;
    }
    if (!result.dryRun) await store.delete(blob.key);
    result.removed++;
    result.removedBytes += now.size;
  }
  return result;
}
