// What bounds the upload row (issue #30, goal 6): the same load as the row (16 in flight, 1 MiB
// PDFs, each different, sent by undici's request with FormData from this process) against a bare server in
// a process of its own that only receives them, and one that receives them and puts them to the
// storage port; beside the row's ceiling (the storage port's put from this process alone).
// Nothing of the service runs: no auth, no type check, no database. Usage:
//   npx tsx bench/upload-bound.ts
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Fastify from 'fastify';
import multipart from '@fastify/multipart';
import { createLocalBlobStore } from '../src/providers/storage/local/store.js';
import { closedLoop, type FlowResult } from './flows/driver.js';
import { documentFactory, storageCeiling, uploadOp } from './flows/documents.js';

const N = 16;
const timing = { concurrency: N, warmupSec: 3, durationSec: 10 };
const mb = (r: FlowResult) => `${(r.bytes / r.durationSec / 1e6).toFixed(1)} MB/s (${r.rps.toFixed(1)}/s, p50 ${r.p50Ms.toFixed(0)} ms)`;

async function serve(store: boolean): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'upload-bound-'));
  const blobs = createLocalBlobStore({ root: join(root, 'blobs') });
  const app = Fastify();
  await app.register(multipart, { limits: { fileSize: 20 * 1024 * 1024, files: 1 } });
  app.post('/user-documents', async (request, reply) => {
    let bytes: Buffer | undefined;
    for await (const part of request.parts()) if (part.type === 'file') bytes = await part.toBuffer();
    if (!bytes) return reply.status(400).send({});
    if (store) await blobs.put(bytes, { contentType: 'application/pdf' });
    return reply.status(201).send({ size: bytes.length });
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  process.send!({ port: typeof address === 'object' && address ? address.port : 0 });
  process.on('disconnect', () => {
    rmSync(root, { recursive: true, force: true });
    process.exit(0);
  });
}

async function againstServer(store: boolean, factory: ReturnType<typeof documentFactory>): Promise<FlowResult> {
  const child = fork(fileURLToPath(import.meta.url), ['serve', store ? 'store' : 'receive'], { execArgv: ['--import', 'tsx'] });
  const port = await new Promise<number>((resolve) => child.once('message', (m: { port: number }) => resolve(m.port)));
  try {
    return await closedLoop(uploadOp({ baseUrl: `http://127.0.0.1:${port}`, tenantId: '00000000-0000-0000-0000-000000000000' }, ['bench'], factory), timing);
  } finally {
    child.disconnect();
  }
}

if (process.argv[2] === 'serve') {
  await serve(process.argv[3] === 'store');
} else {
  const factory = documentFactory();
  // The row's own ceiling (storageCeiling), on a DATA_DIR of its own.
  const dataDir = mkdtempSync(join(tmpdir(), 'upload-bound-'));
  const put = await storageCeiling({ dataDir, s3: undefined }, factory, timing);
  rmSync(dataDir, { recursive: true, force: true });
  process.stdout.write(`storage port put, in this process (the row's ceiling): ${mb(put)}\n`);
  const receive = await againstServer(false, factory);
  process.stdout.write(`bare server, multipart received into memory:          ${mb(receive)}  ${((receive.rps / put.rps) * 100).toFixed(0)}% of the put\n`);
  const both = await againstServer(true, factory);
  process.stdout.write(`bare server, received and put to the storage port:   ${mb(both)}  ${((both.rps / put.rps) * 100).toFixed(0)}% of the put\n`);
}
