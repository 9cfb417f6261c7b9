import { createHash, webcrypto, type Hash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { BlobTooLargeError } from './port.js';

export interface Written {
  sha256: string;
  /** Base64 MD5, for stores that check the bytes they receive (S3's Content-MD5); only when asked for. */
  md5?: string;
  size: number;
}

/**
 * The SHA-256 of bytes already in memory, computed on libuv's thread pool (WebCrypto's digest),
 * not on the main thread: a 20 MiB document took about 96 ms of one `update` call, during which
 * the process answered nothing else.
 */
async function sha256Hex(bytes: Uint8Array): Promise<string> {
  return Buffer.from(await webcrypto.subtle.digest('SHA-256', bytes)).toString('hex');
}

/**
 * Writes every byte: one write() may write fewer than asked (a disk filling up answers a short
 * count before it answers ENOSPC), and a blob named by the hash of bytes it does not hold
 * would be stored as whole.
 */
async function writeAll(handle: FileHandle, bytes: Uint8Array): Promise<void> {
  for (let offset = 0; offset < bytes.length; ) {
    const { bytesWritten } = await handle.write(bytes, offset, bytes.length - offset);
    if (bytesWritten <= 0) throw new Error('the blob file accepted no more bytes');
    offset += bytesWritten;
  }
}

/**
 * Writes the bytes to an open file while hashing them, and flushes the file to disk (fsync).
 * Stops with BlobTooLargeError as soon as more than `maxBytes` have arrived. Bytes already in
 * memory are hashed off the main thread while they are written; a stream is hashed chunk by
 * chunk as it arrives (each chunk's `update` is short). The MD5 is taken only for a store that
 * sends it (S3); the local store names blobs by SHA-256 alone, and an MD5 of a 1 MiB document
 * costs about 1.5 ms of the main thread.
 */
export async function writeHashed(handle: FileHandle, data: Uint8Array | Readable, maxBytes = Infinity, withMd5 = false): Promise<Written> {
  if (data instanceof Uint8Array) {
    if (data.length > maxBytes) throw new BlobTooLargeError(maxBytes);
    const [digests] = await Promise.all([hashBytes(data, withMd5), writeAll(handle, data)]);
    await handle.sync();
    return digests;
  }
  const sha256: Hash = createHash('sha256');
  const md5: Hash | undefined = withMd5 ? createHash('md5') : undefined;
  let size = 0;
  for await (const chunk of data as AsyncIterable<Uint8Array | string>) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += bytes.length;
    if (size > maxBytes) {
      data.destroy();
      throw new BlobTooLargeError(maxBytes);
    }
    sha256.update(bytes);
    md5?.update(bytes);
    await writeAll(handle, bytes);
  }
  await handle.sync();
  return { sha256: sha256.digest('hex'), md5: md5?.digest('base64'), size };
}

/** The same digests for bytes already in memory (the SHA-256 off the main thread; the MD5, when asked for, on it). */
export async function hashBytes(bytes: Uint8Array, withMd5 = true): Promise<Written> {
  const md5 = withMd5 ? createHash('md5').update(bytes).digest('base64') : undefined;
  return { sha256: await sha256Hex(bytes), md5, size: bytes.length };
}
