import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { writeHashed } from '../../src/providers/storage/hashing.js';
import { createLocalBlobStore } from '../../src/providers/storage/local/store.js';
import { createStorage } from '../../src/providers/storage/select.js';

const mode = (path: string) => statSync(path).mode & 0o777;

describe('local blob store on disk', () => {
  it('files are 0600 under 0700 directories, named ab/cd/<sha256>; no temporary file stays behind', async () => {
    const root = join(mkdtempSync(join(tmpdir(), 'bastion-blobs-')), 'blobs');
    const store = createLocalBlobStore({ root });
    const put = await store.put(randomBytes(5000));
    const path = join(root, put.key.slice(0, 2), put.key.slice(2, 4), put.key);
    expect(statSync(path).size).toBe(5000);
    expect(mode(path)).toBe(0o600);
    for (const dir of [root, join(root, put.key.slice(0, 2)), join(root, put.key.slice(0, 2), put.key.slice(2, 4))]) expect(mode(dir)).toBe(0o700);
    expect(readdirSync(join(root, '.tmp'))).toEqual([]);
  });

  it('a failed put (too large, or a stream that breaks) leaves no file, temporary or final', async () => {
    const root = join(mkdtempSync(join(tmpdir(), 'bastion-blobs-')), 'blobs');
    const store = createLocalBlobStore({ root });
    await expect(store.put(randomBytes(2000), { maxBytes: 1000 })).rejects.toThrow(/larger than 1000 bytes/);
    const broken = new Readable({
      read() {
        this.push(randomBytes(100));
        this.destroy(new Error('client went away'));
      },
    });
    await expect(store.put(broken)).rejects.toThrow('client went away');
    expect(readdirSync(root)).toEqual(['.tmp']);
    expect(readdirSync(join(root, '.tmp'))).toEqual([]);
  });

  it('a put of content already stored renews its age (a sweep then spares it)', async () => {
    const root = join(mkdtempSync(join(tmpdir(), 'bastion-blobs-')), 'blobs');
    const store = createLocalBlobStore({ root });
    const bytes = randomBytes(100);
    const put = await store.put(bytes);
    const path = join(root, put.key.slice(0, 2), put.key.slice(2, 4), put.key);
    const old = new Date(Date.now() - 48 * 3_600_000);
    utimesSync(path, old, old);
    expect((await store.head(put.key))!.lastModified.getTime()).toBe(old.getTime());
    await store.put(bytes);
    expect((await store.head(put.key))!.lastModified.getTime()).toBeGreaterThan(Date.now() - 60_000);
  });

  it('list ignores files that are not blobs; stale temporary files of interrupted puts are removed', async () => {
    const root = join(mkdtempSync(join(tmpdir(), 'bastion-blobs-')), 'blobs');
    const store = createLocalBlobStore({ root });
    const put = await store.put(Buffer.from('real'));
    writeFileSync(join(root, put.key.slice(0, 2), put.key.slice(2, 4), 'notes.txt'), 'x');
    writeFileSync(join(root, put.key.slice(0, 2), put.key.slice(2, 4), 'f'.repeat(64)), 'misplaced');
    const listed = [];
    for await (const blob of store.list()) listed.push(blob.key);
    expect(listed).toEqual([put.key]);

    const stale = join(root, '.tmp', 'interrupted');
    const fresh = join(root, '.tmp', 'in-progress');
    writeFileSync(stale, 'half');
    writeFileSync(fresh, 'half');
    const old = new Date(Date.now() - 48 * 3_600_000);
    utimesSync(stale, old, old);
    expect(await store.removeStaleTemp(new Date(Date.now() - 24 * 3_600_000))).toBe(1);
    expect(readdirSync(join(root, '.tmp'))).toEqual(['in-progress']);
  });
});

describe('writeHashed', () => {
  it('writes and hashes bytes or a stream; the MD5 (S3\'s Content-MD5) only when asked for', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bastion-hashed-'));
    const bytes = randomBytes(300_000);
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const md5 = createHash('md5').update(bytes).digest('base64');
    for (const [name, withMd5] of [['plain', false], ['with-md5', true]] as const) {
      for (const source of ['bytes', 'stream'] as const) {
        const file = join(dir, `${name}-${source}`);
        const handle = await open(file, 'wx');
        const data = source === 'bytes' ? bytes : Readable.from([bytes.subarray(0, 1000), bytes.subarray(1000)]);
        const written = await writeHashed(handle, data, Infinity, withMd5).finally(() => handle.close());
        expect(written).toEqual({ sha256, md5: withMd5 ? md5 : undefined, size: bytes.length });
        expect(readFileSync(file).equals(bytes)).toBe(true);
      }
    }
  });

  it('a file that takes fewer bytes a write than it is given still gets every byte (bytes and streams)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bastion-hashed-'));
    const bytes = randomBytes(10_000);
    for (const source of ['bytes', 'stream'] as const) {
      const file = join(dir, source);
      const real = await open(file, 'wx');
      let writes = 0;
      // A handle whose every write stores at most 999 bytes, as a short write() does.
      const short = {
        write: (buffer: Uint8Array, offset = 0, length = buffer.length - offset) => {
          writes += 1;
          return real.write(buffer, offset, Math.min(length, 999));
        },
        sync: () => real.sync(),
      } as unknown as FileHandle;
      const data = source === 'bytes' ? bytes : Readable.from([bytes.subarray(0, 4000), bytes.subarray(4000)]);
      const written = await writeHashed(short, data).finally(() => real.close());
      expect(written.size).toBe(bytes.length);
      expect(readFileSync(file).equals(bytes)).toBe(true);
      expect(writes).toBeGreaterThan(10);
    }
  });

  it('bytes in memory are hashed as the view they are: a slice of a larger buffer, a pooled small buffer, nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bastion-hashed-'));
    const large = randomBytes(10_000);
    const views = { slice: large.subarray(1234, 5678), pooled: Buffer.from('real'), empty: Buffer.alloc(0) };
    expect(views.pooled.buffer.byteLength).toBeGreaterThan(views.pooled.length);
    for (const [name, bytes] of Object.entries(views)) {
      const file = join(dir, name);
      const handle = await open(file, 'wx');
      const written = await writeHashed(handle, bytes, Infinity, true).finally(() => handle.close());
      expect(written).toEqual({ sha256: createHash('sha256').update(bytes).digest('hex'), md5: createHash('md5').update(bytes).digest('base64'), size: bytes.length });
      expect(readFileSync(file).equals(bytes)).toBe(true);
    }
  });
});

describe('storage configuration', () => {
  it('no S3 variables: blobs under DATA_DIR/blobs', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'bastion-cfg-'));
    const config = loadConfig({ DATA_DIR: dataDir });
    expect(config.s3).toBeUndefined();
    expect(createStorage(config).kind).toBe('local');
  });

  it('S3_BUCKET selects the S3-compatible store, region us-east-1 by default', () => {
    const config = loadConfig({ S3_BUCKET: 'docs', S3_ENDPOINT: 'http://127.0.0.1:9000/', S3_ACCESS_KEY_ID: 'id', S3_SECRET_ACCESS_KEY: 'secret' });
    expect(config.s3).toEqual({ endpoint: 'http://127.0.0.1:9000', bucket: 'docs', region: 'us-east-1', accessKeyId: 'id', secretAccessKey: 'secret' });
    expect(createStorage(config).kind).toBe('s3');
    expect(loadConfig({ S3_BUCKET: 'docs', S3_REGION: 'eu-west-3' }).s3).toMatchObject({ endpoint: undefined, region: 'eu-west-3', accessKeyId: undefined });
  });

  it.each([
    [{ S3_ENDPOINT: 'http://127.0.0.1:9000' }, 'S3_BUCKET'],
    [{ S3_ACCESS_KEY_ID: 'id', S3_SECRET_ACCESS_KEY: 's' }, 'S3_BUCKET'],
    [{ S3_BUCKET: 'Bad_Bucket' }, 'S3_BUCKET'],
    [{ S3_BUCKET: 'docs', S3_ENDPOINT: 'ftp://x' }, 'S3_ENDPOINT'],
    [{ S3_BUCKET: 'docs', S3_ACCESS_KEY_ID: 'id' }, 'S3_SECRET_ACCESS_KEY'],
    [{ S3_BUCKET: 'docs', S3_SECRET_ACCESS_KEY: 's' }, 'S3_ACCESS_KEY_ID'],
    [{ S3_BUCKET: 'docs', S3_REGION: 'eu west' }, 'S3_REGION'],
  ])('refuses %o naming %s', (env, variable) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(new RegExp(variable));
  });
});
