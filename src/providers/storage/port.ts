import type { Readable } from 'node:stream';

/**
 * Blob storage: content-addressed, immutable objects. The key of an object is the SHA-256 (hex)
 * of its bytes, so the same content is stored once and a key names exactly one content.
 *
 * The rule for every module that keeps files (documents first): write the object with `put`
 * BEFORE the database row that points at it, in that order. A crash between the two leaves
 * at worst an orphan object, which the sweep (`sweepOrphans`, CLI `storage gc`) removes after a
 * day; never a row without its file. The row must be written within that day of the put.
 */
export interface BlobStore {
  readonly kind: 'local' | 's3';
  /**
   * Stores bytes (a buffer or a stream, hashed while they are read) and returns their key. A put
   * of content already stored keeps one copy and renews its age, so a sweep running meanwhile
   * cannot take it. Streams over `maxBytes` are refused with BlobTooLargeError and store nothing.
   */
  put(data: Uint8Array | Readable, options?: PutOptions): Promise<PutResult>;
  /** The object's bytes, or undefined when there is no such object. */
  get(key: string): Promise<Readable | undefined>;
  head(key: string): Promise<BlobInfo | undefined>;
  /** Removes the object; removing an absent object is not an error. */
  delete(key: string): Promise<void>;
  /** Every stored object, in no particular order (for the sweep). */
  list(): AsyncIterable<BlobInfo>;
}

export interface PutOptions {
  /** Kept by stores that can (S3 serves it back); the row that points at the blob is the authority. */
  contentType?: string;
  /** Refuse content larger than this many bytes. */
  maxBytes?: number;
}

export interface PutResult {
  /** The SHA-256 of the bytes, hex: the object's key. */
  key: string;
  sha256: string;
  size: number;
}

export interface BlobInfo {
  key: string;
  size: number;
  /** When the object was last written (or renewed by a put of the same content). */
  lastModified: Date;
}

export class InvalidBlobKeyError extends Error {
  constructor() {
    super('A blob key is 64 lower-case hex characters (a SHA-256)');
    this.name = 'InvalidBlobKeyError';
  }
}

export class BlobTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`The content is larger than ${maxBytes} bytes`);
    this.name = 'BlobTooLargeError';
  }
}

const KEY_RE = /^[0-9a-f]{64}$/;

/** Checks a key before it reaches a path or an object name (no traversal, no other names). */
export function assertBlobKey(key: string): void {
  if (typeof key !== 'string' || !KEY_RE.test(key)) throw new InvalidBlobKeyError();
}

export function isBlobKey(key: string): boolean {
  return KEY_RE.test(key);
}
