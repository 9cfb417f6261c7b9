// Document upload in MB/s: POST /user-documents (multipart/form-data: type, name and one file
// part), a PDF of DOCUMENT_BYTES each, every one different (the store is content-addressed:
// the same bytes twice would be stored once). Each worker uploads as its own user (bearer).
// Ceiling: the same bytes written to the storage port (createStorage of the same
// configuration, DATA_DIR/blobs or S3) directly from this process, with the same number in
// flight.
import { randomBytes, randomFillSync } from 'node:crypto';
import type { Config } from '../../src/config.js';
import { createStorage } from '../../src/providers/storage/select.js';
import { FormData } from 'undici';
import { closedLoop, type FlowOp } from './driver.js';
import { call, type Caller } from './http.js';

/** 1 MiB: a scanned page or a phone photo of a document. */
export const DOCUMENT_BYTES = 1024 * 1024;
const OFFSET = 16;

/**
 * A PDF of `size` bytes that passes the service's structural check: the header, one stream
 * object of random bytes, a cross-reference section, the trailer, startxref and %%EOF.
 * unique() makes the next one different.
 */
export function documentFactory(size = DOCUMENT_BYTES) {
  const head = Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1');
  const objectHead = (length: number) => Buffer.from(`1 0 obj\n<< /Length ${length} >>\nstream\n`, 'latin1');
  const objectTail = Buffer.from('\nendstream\nendobj\n', 'latin1');
  const xref = (objectAt: number) =>
    `xref\n0 2\n0000000000 65535 f \n${String(objectAt).padStart(10, '0')} 00000 n \ntrailer\n<< /Size 2 >>\n`;
  // The trailer's length depends on the offsets (fixed width), not on the content.
  const fixed = head.length + objectHead(size).length + objectTail.length + xref(head.length).length + `startxref\n${size}\n%%EOF\n`.length;
  const streamLength = size - fixed;
  const template = Buffer.concat([
    head,
    objectHead(streamLength),
    randomBytes(streamLength),
    objectTail,
  ]);
  const xrefAt = template.length;
  const file = Buffer.concat([template, Buffer.from(xref(head.length) + `startxref\n${xrefAt}\n%%EOF\n`, 'latin1')]);
  const streamAt = head.length + objectHead(streamLength).length;
  return {
    size: file.length,
    /** A copy with 16 fresh random bytes at the start of the stream. */
    unique(): Buffer {
      const copy = Buffer.from(file);
      randomFillSync(copy, streamAt + OFFSET, 16);
      return copy;
    },
  };
}

/** The row's operation: worker w uploads a new document as the user of token w. */
export function uploadOp(caller: Caller, tokens: string[], factory: ReturnType<typeof documentFactory>): FlowOp {
  let n = 0;
  return async (worker) => {
    const bytes = factory.unique();
    const form = new FormData();
    form.set('type', 'identity');
    form.set('name', `bench document ${n++}`);
    form.set('file', new Blob([bytes], { type: 'application/pdf' }), 'document.pdf');
    await call(caller, 'POST', '/user-documents', { bearer: tokens[worker % tokens.length]!, form });
    return bytes.length;
  };
}

/** BlobStore.put of the same documents, in this process. */
export async function storageCeiling(config: Pick<Config, 'dataDir' | 's3'>, factory: ReturnType<typeof documentFactory>, options: { concurrency: number; warmupSec: number; durationSec: number }) {
  const store = createStorage(config);
  return closedLoop(async () => {
    const bytes = factory.unique();
    await store.put(bytes, { contentType: 'application/pdf', maxBytes: 20 * 1024 * 1024 });
    return bytes.length;
  }, options);
}
