import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  paginateListObjectsV2,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import type { S3Config } from '../../../config.js';
import { hashBytes, writeHashed, type Written } from '../hashing.js';
import { assertBlobKey, BlobTooLargeError, isBlobKey, type BlobInfo, type BlobStore } from '../port.js';

const PREFIX = 'blobs/';

function isNotFound(error: unknown): boolean {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.name === 'NoSuchKey' || e.name === 'NotFound' || e.$metadata?.httpStatusCode === 404;
}

/**
 * The S3 client for AWS or any S3-compatible server: path-style addressing (`endpoint/bucket/key`,
 * no bucket sub-domains), and checksums only where the operation requires them, since many
 * S3-compatible servers reject the newer flexible-checksum headers and trailers.
 */
export function createS3Client(config: S3Config): S3Client {
  return new S3Client({
    region: config.region,
    endpoint: config.endpoint,
    forcePathStyle: true,
    credentials:
      config.accessKeyId && config.secretAccessKey ? { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey } : undefined,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

/**
 * Blobs as objects `blobs/<sha256>` in one bucket. Bytes in memory are hashed and sent as they
 * are; a stream is spooled to a temporary file
 * (mode 0600) while it is hashed, since the key is known only at its end; the object is then
 * uploaded with its length and Content-MD5, which S3 checks against the bytes it received.
 */
export function createS3BlobStore(config: S3Config, options: { tempDir?: string; client?: S3Client } = {}) {
  const client = options.client ?? createS3Client(config);
  const Bucket = config.bucket;
  const tempDir = options.tempDir ?? join(tmpdir(), 'bastion-s3-uploads');

  async function info(key: string): Promise<BlobInfo | undefined> {
    try {
      const out = await client.send(new HeadObjectCommand({ Bucket, Key: PREFIX + key }));
      return { key, size: out.ContentLength ?? 0, lastModified: out.LastModified ?? new Date(0) };
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  const store: BlobStore & { client: S3Client } = {
    kind: 's3',
    client,

    async put(data, putOptions = {}) {
      const upload = async (written: Written, Body: Uint8Array | Readable) => {
        // Always uploaded, even when the object exists: the upload renews its age, so a sweep
        // running meanwhile leaves it to the row about to point at it.
        await client.send(
          new PutObjectCommand({
            Bucket,
            Key: PREFIX + written.sha256,
            Body,
            ContentLength: written.size,
            ContentMD5: written.md5,
            ContentType: putOptions.contentType ?? 'application/octet-stream',
          }),
        );
        return { key: written.sha256, sha256: written.sha256, size: written.size };
      };
      if (data instanceof Uint8Array) {
        if (putOptions.maxBytes !== undefined && data.length > putOptions.maxBytes) throw new BlobTooLargeError(putOptions.maxBytes);
        return upload(await hashBytes(data), data);
      }
      await mkdir(tempDir, { recursive: true, mode: 0o700 });
      const temp = join(tempDir, randomUUID());
      const handle = await open(temp, 'wx', 0o600);
      try {
        let written;
        try {
          written = await writeHashed(handle, data, putOptions.maxBytes, true);
        } finally {
          await handle.close();
        }
        return await upload(written, createReadStream(temp));
      } finally {
        await unlink(temp).catch(() => undefined);
      }
    },

    async get(key) {
      assertBlobKey(key);
      try {
        const out = await client.send(new GetObjectCommand({ Bucket, Key: PREFIX + key }));
        return out.Body as Readable;
      } catch (error) {
        if (isNotFound(error)) return undefined;
        throw error;
      }
    },

    async head(key) {
      assertBlobKey(key);
      return info(key);
    },

    async delete(key) {
      assertBlobKey(key);
      await client.send(new DeleteObjectCommand({ Bucket, Key: PREFIX + key }));
    },

    async *list() {
      for await (const page of paginateListObjectsV2({ client }, { Bucket, Prefix: PREFIX })) {
        for (const object of page.Contents ?? []) {
          const key = object.Key?.slice(PREFIX.length) ?? '';
          if (!isBlobKey(key)) continue;
          yield { key, size: object.Size ?? 0, lastModified: object.LastModified ?? new Date(0) };
        }
      }
    },
  };
  return store;
}
