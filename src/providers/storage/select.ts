import { join } from 'node:path';
import type { Config } from '../../config.js';
import { createLocalBlobStore } from './local/store.js';
import type { BlobStore } from './port.js';
import { createS3BlobStore } from './s3/store.js';

/** The blob store the configuration names: S3-compatible when S3_BUCKET is set, else DATA_DIR/blobs. */
export function createStorage(config: Pick<Config, 'dataDir' | 's3'>): BlobStore {
  if (config.s3) return createS3BlobStore(config.s3, { tempDir: join(config.dataDir, 'tmp', 's3-uploads') });
  return createLocalBlobStore({ root: join(config.dataDir, 'blobs') });
}
