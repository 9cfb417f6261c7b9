import { join } from 'node:path';
import type { Config, S3Config } from '../../config.js';
import { createLocalBlobStore } from './local/store.js';
import type { BlobStore } from './port.js';

/** The blob store the configuration names: S3-compatible when S3_BUCKET is set, else DATA_DIR/blobs. */
export function createStorage(config: Pick<Config, 'dataDir' | 's3'>): BlobStore {
  if (config.s3) return s3OnFirstUse(config.s3, join(config.dataDir, 'tmp', 's3-uploads'));
  return createLocalBlobStore({ root: join(config.dataDir, 'blobs') });
}

/**
 * The S3 store, with the AWS SDK loaded at its first call: the SDK is about 0.9 MB of code that
 * every start compiled, where most installations keep their blobs in DATA_DIR.
 */
function s3OnFirstUse(config: S3Config, tempDir: string): BlobStore {
  let loaded: Promise<BlobStore> | undefined;
  const store = () => (loaded ??= import('./s3/store.js').then(({ createS3BlobStore }) => createS3BlobStore(config, { tempDir })));
  return {
    kind: 's3',
    put: async (data, options) => (await store()).put(data, options),
    get: async (key) => (await store()).get(key),
    head: async (key) => (await store()).head(key),
    delete: async (key) => (await store()).delete(key),
    async *list() {
      yield* (await store()).list();
    },
  };
}
