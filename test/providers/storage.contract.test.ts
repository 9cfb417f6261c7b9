import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { buffer, text } from 'node:stream/consumers';
import { HeadObjectCommand } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalBlobStore } from '../../src/providers/storage/local/store.js';
import { BlobTooLargeError, InvalidBlobKeyError, type BlobStore } from '../../src/providers/storage/port.js';
import { createS3BlobStore } from '../../src/providers/storage/s3/store.js';
import { sweepOrphans } from '../../src/providers/storage/sweep.js';

const HOUR = 3_600_000;
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const chunked = (bytes: Buffer, size = 64 * 1024) =>
  Readable.from((function* () {
    for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
  })());

async function keys(store: BlobStore): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  for await (const blob of store.list()) found.set(blob.key, blob.size);
  return found;
}

/** The behaviour every blob store must have; `make` gives a fresh, empty store. */
function contract(name: string, make: () => BlobStore): void {
  describe(`${name} blob store contract`, () => {
    let store: BlobStore;
    beforeAll(() => {
      store = make();
    });

    it('put of bytes answers their SHA-256 as key; get and head give them back', async () => {
      const bytes = randomBytes(1000);
      const before = Date.now();
      const put = await store.put(bytes, { contentType: 'application/pdf' });
      expect(put).toEqual({ key: sha256(bytes), sha256: sha256(bytes), size: 1000 });
      expect(await buffer((await store.get(put.key))!)).toEqual(bytes);
      const head = await store.head(put.key);
      expect(head).toMatchObject({ key: put.key, size: 1000 });
      // Whole-second stores (S3) round down.
      expect(head!.lastModified.getTime()).toBeGreaterThan(before - 2000);
      expect(head!.lastModified.getTime()).toBeLessThanOrEqual(Date.now() + 1000);
    });

    it('a stream in many chunks is hashed as it is read and stored whole; the same content is one object', async () => {
      const bytes = randomBytes(3 * 1024 * 1024 + 17);
      const fromStream = await store.put(chunked(bytes));
      expect(fromStream).toEqual({ key: sha256(bytes), sha256: sha256(bytes), size: bytes.length });
      const fromBuffer = await store.put(bytes);
      expect(fromBuffer.key).toBe(fromStream.key);
      expect([...(await keys(store)).keys()].filter((k) => k === fromStream.key)).toHaveLength(1);
      expect(sha256(await buffer((await store.get(fromStream.key))!))).toBe(fromStream.key);
    });

    it('empty content is a blob too', async () => {
      const put = await store.put(Buffer.alloc(0));
      expect(put).toEqual({ key: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855', sha256: put.key, size: 0 });
      expect(await text((await store.get(put.key))!)).toBe('');
    });

    it('a missing blob: get and head answer undefined; delete is harmless', async () => {
      const absent = sha256(randomBytes(8));
      expect(await store.get(absent)).toBeUndefined();
      expect(await store.head(absent)).toBeUndefined();
      await expect(store.delete(absent)).resolves.toBeUndefined();
    });

    it('delete removes the blob', async () => {
      const put = await store.put(Buffer.from('to be deleted'));
      await store.delete(put.key);
      expect(await store.head(put.key)).toBeUndefined();
      expect(await store.get(put.key)).toBeUndefined();
      expect((await keys(store)).has(put.key)).toBe(false);
    });

    it('a key that is not a SHA-256 in hex is refused before it reaches the store', async () => {
      for (const bad of ['../../etc/passwd', 'A'.repeat(64), 'a'.repeat(63), `${'a'.repeat(64)}/x`, '']) {
        await expect(store.get(bad)).rejects.toBeInstanceOf(InvalidBlobKeyError);
        await expect(store.head(bad)).rejects.toBeInstanceOf(InvalidBlobKeyError);
        await expect(store.delete(bad)).rejects.toBeInstanceOf(InvalidBlobKeyError);
      }
    });

    it('content over maxBytes is refused and stores nothing', async () => {
      const before = await keys(store);
      const big = randomBytes(200_000);
      await expect(store.put(chunked(big, 10_000), { maxBytes: 100_000 })).rejects.toBeInstanceOf(BlobTooLargeError);
      await expect(store.put(big, { maxBytes: 199_999 })).rejects.toBeInstanceOf(BlobTooLargeError);
      expect(await store.head(sha256(big))).toBeUndefined();
      expect(await keys(store)).toEqual(before);
      expect((await store.put(big, { maxBytes: 200_000 })).size).toBe(200_000);
    });

    it('list yields every blob with its size', async () => {
      const a = await store.put(Buffer.from('list a'));
      const b = await store.put(Buffer.from('list bb'));
      const listed = await keys(store);
      expect(listed.get(a.key)).toBe(6);
      expect(listed.get(b.key)).toBe(7);
    });

    it('the sweep removes old blobs nothing references, keeps referenced and young ones, and names what it consulted', async () => {
      const kept = await store.put(Buffer.from('referenced by a row'));
      const orphan = await store.put(Buffer.from('an orphan'));
      const later = new Date(Date.now() + 25 * HOUR);
      const references = [{ name: 'test-documents', isReferenced: async (key: string) => key === kept.key }];

      const young = await sweepOrphans(store, { olderThanMs: 24 * HOUR, references });
      expect(young).toMatchObject({ checkedBy: ['test-documents'], removed: 0, referenced: 0 });
      expect(young.young).toBe(young.scanned);

      const dry = await sweepOrphans(store, { olderThanMs: 24 * HOUR, now: later, references, dryRun: true });
      expect(dry).toMatchObject({ dryRun: true, referenced: 1, young: 0 });
      expect(dry.removed).toBe(dry.scanned - 1);
      expect(await store.head(orphan.key)).toBeDefined();

      const swept = await sweepOrphans(store, { olderThanMs: 24 * HOUR, now: later, references });
      expect(swept).toMatchObject({ dryRun: false, referenced: 1, removed: dry.removed, scanned: dry.scanned });
      expect(swept.removedBytes).toBeGreaterThan(0);
      expect(await store.head(orphan.key)).toBeUndefined();
      expect(await store.head(kept.key)).toBeDefined();
      expect([...(await keys(store)).keys()]).toEqual([kept.key]);

      // With no module consulted nothing counts as referenced: the honest empty list says so.
      const none = await sweepOrphans(store, { olderThanMs: 24 * HOUR, now: later, references: [] });
      expect(none).toMatchObject({ checkedBy: [], removed: 1 });
      expect(await keys(store)).toEqual(new Map());
      await expect(sweepOrphans(store, { olderThanMs: 0, references: [] })).rejects.toThrow(RangeError);
    });
  });
}

contract('local', () => createLocalBlobStore({ root: join(mkdtempSync(join(tmpdir(), 'bastion-blobs-')), 'blobs') }));

describe('s3rver on loopback', () => {
  const bucket = 'bastion-test';
  let server: S3rver;
  let endpoint = '';
  beforeAll(async () => {
    server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: mkdtempSync(join(tmpdir(), 'bastion-s3rver-')), configureBuckets: [{ name: bucket }] });
    const address = await server.run();
    endpoint = `http://127.0.0.1:${address.port}`;
  });
  afterAll(async () => server.close());

  const s3 = (accessKeyId = 'S3RVER') =>
    createS3BlobStore(
      { endpoint, bucket, region: 'us-east-1', accessKeyId, secretAccessKey: 'S3RVER' },
      { tempDir: mkdtempSync(join(tmpdir(), 'bastion-s3-tmp-')) },
    );

  contract('s3', () => s3());

  it('objects are blobs/<sha256> in the bucket, with their content type; checksums only when required', async () => {
    const store = s3();
    const put = await store.put(Buffer.from('%PDF-1.7 test'), { contentType: 'application/pdf' });
    const head = await store.client.send(new HeadObjectCommand({ Bucket: bucket, Key: `blobs/${put.key}` }));
    expect(head).toMatchObject({ ContentType: 'application/pdf', ContentLength: 13 });
    expect(await store.client.config.requestChecksumCalculation()).toBe('WHEN_REQUIRED');
    expect(await store.client.config.responseChecksumValidation()).toBe('WHEN_REQUIRED');
    expect(store.client.config.forcePathStyle).toBe(true);
  });

  // s3rver checks the access key id of a SigV4 request, not the signature itself.
  it('requests carry the configured credentials: an unknown access key is refused and stores nothing', async () => {
    const bytes = randomBytes(64);
    await expect(s3('NOT-A-KEY').put(bytes)).rejects.toMatchObject({ name: 'InvalidAccessKeyId' });
    expect(await s3().head(sha256(bytes))).toBeUndefined();
  });
});
