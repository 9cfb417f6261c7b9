import { randomBytes } from 'node:crypto';
import { mkdtempSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import { describe, expect, it } from 'vitest';
import { commands } from '../../src/cli-commands.js';
import { createLocalBlobStore } from '../../src/providers/storage/local/store.js';
import { createS3BlobStore } from '../../src/providers/storage/s3/store.js';
import { createHarness, TEST_MASTER_KEY } from '../helpers/harness.js';
import { cliJson } from '../helpers/cli.js';

const HOUR = 3_600_000;

function cliFor(env: Record<string, string>) {
  const full = { PATH: process.env.PATH ?? '', MASTER_KEY: TEST_MASTER_KEY, LOG_LEVEL: 'silent', ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}), ...env };
  return cliJson(full);
}

/** `storage gc` run in-process (as the service runs it for a CLI on its socket), on a harness with this environment. */
async function gcWith(env: Record<string, string> = {}) {
  const h = await createHarness({ env });
  return {
    dataDir: h.dataDir,
    gc: (options: Record<string, string> = {}) => commands['storage gc']!(h.container, options, { redirectAllow: [] }),
    close: () => h.close(),
  };
}

describe('operator CLI: storage gc', () => {
  it('removes local blobs older than the limit that no module references, says which modules it asked, and refuses a bad limit', async () => {
    const harness = await gcWith();
    const { dataDir } = harness;
    const root = join(dataDir, 'blobs');
    const store = createLocalBlobStore({ root });
    const old = await store.put(randomBytes(300));
    const young = await store.put(randomBytes(200));
    const aged = new Date(Date.now() - 30 * HOUR);
    utimesSync(join(root, old.key.slice(0, 2), old.key.slice(2, 4), old.key), aged, aged);
    const dry = await harness.gc({ 'dry-run': 'true' });
    expect(dry).toEqual({ store: 'local', olderThanHours: 24, checkedBy: ['documents'], scanned: 2, young: 1, referenced: 0, removed: 1, removedBytes: 300, dryRun: true, tempRemoved: 0 });
    expect(await store.head(old.key)).toBeDefined();

    expect(await harness.gc({ 'older-than': '29.5' })).toMatchObject({ olderThanHours: 29.5, checkedBy: ['documents'], young: 1, removed: 1, dryRun: false });
    expect(await store.head(old.key)).toBeUndefined();
    expect(await store.head(young.key)).toBeDefined();
    await harness.close();

    // The process refuses a bad limit before it opens the database.
    const cli = cliFor({ DATA_DIR: dataDir });
    for (const bad of ['0.5', 'soon']) {
      await expect(cli('storage', 'gc', `--older-than=${bad}`)).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('--older-than must be a number of hours') });
    }
  }, 300_000);

  it('with S3_BUCKET set it sweeps the S3-compatible store', async () => {
    const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: mkdtempSync(join(tmpdir(), 'bastion-s3rver-')), configureBuckets: [{ name: 'gc-test' }] });
    const { port } = await server.run();
    try {
      const s3 = { endpoint: `http://127.0.0.1:${port}`, bucket: 'gc-test', region: 'us-east-1', accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
      const store = createS3BlobStore(s3, { tempDir: mkdtempSync(join(tmpdir(), 'bastion-s3-tmp-')) });
      const blob = await store.put(randomBytes(50));
      const harness = await gcWith({
        S3_ENDPOINT: s3.endpoint,
        S3_BUCKET: s3.bucket,
        S3_ACCESS_KEY_ID: s3.accessKeyId,
        S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
      });
      try {
        // Just written: younger than the shortest limit, so it stays.
        expect(await harness.gc({ 'older-than': '1' })).toMatchObject({ store: 's3', checkedBy: ['documents'], scanned: 1, young: 1, removed: 0 });
        expect(await store.head(blob.key)).toBeDefined();
      } finally {
        await harness.close();
      }
    } finally {
      await server.close();
    }
  }, 300_000);
});
