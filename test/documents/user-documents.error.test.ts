import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStorage } from '../../src/providers/storage/select.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { outbox } from '../helpers/outbox.js';
import { fileServer, GIF, makePdf, multipartBody, PNG, upload } from './fixtures.js';

let h: Harness;
let files: Awaited<ReturnType<typeof fileServer>>;
let userHeaders: Record<string, string>;
const MB = 1024 * 1024;

beforeAll(async () => {
  h = await createHarness({ documents: { allowLoopbackUrls: true, fetchTimeoutMs: 2000 } });
  userHeaders = h.bearerHeaders(await h.tokenFor(await h.createUser()));
  const big = Buffer.concat([makePdf(), Buffer.alloc(20 * MB)]);
  files = await fileServer({
    '/metadata': (_req, res) => res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end(),
    '/private': (_req, res) => res.writeHead(301, { location: 'http://10.0.0.1/x.pdf' }).end(),
    '/ipv6': (_req, res) => res.writeHead(307, { location: 'http://[fd00::1]/x.pdf' }).end(),
    '/loop': (_req, res) => res.writeHead(302, { location: '/loop' }).end(),
    '/big-declared': (_req, res) => res.writeHead(200, { 'content-length': String(big.length) }).end(big),
    '/big-chunked': (_req, res) => {
      res.writeHead(200);
      res.end(big);
    },
    '/slow': (_req, res) => {
      res.writeHead(200);
      res.write('%PDF-1.7\n');
    },
    '/gif': (_req, res) => res.writeHead(200, { 'content-type': 'application/pdf' }).end(GIF),
    '/missing': (_req, res) => res.writeHead(404).end(),
  });
});
afterAll(async () => {
  await files.close();
  await h.close();
});

async function blobCount(): Promise<number> {
  let n = 0;
  for await (const _ of createStorage(h.container.config).list()) n++;
  return n;
}

/** Runs the call, expects the error, and checks that no blob, row or event was added. */
async function refused(call: () => Promise<{ statusCode: number; json: () => { code?: string } }>, status: number, code: string) {
  const [blobs, events] = [await blobCount(), (await outbox(h, undefined, 'document.uploaded')).length];
  const res = await call();
  expect(res.statusCode, JSON.stringify(res.json())).toBe(status);
  expect(res.json()).toMatchObject({ statusCode: status, code, message: expect.any(String) });
  expect(await blobCount()).toBe(blobs);
  expect((await outbox(h, undefined, 'document.uploaded')).length).toBe(events);
}

describe('POST /user-documents refusals', () => {
  it('413 above 20 MiB', async () => {
    await refused(() => upload(h, userHeaders, undefined, Buffer.concat([makePdf(), Buffer.alloc(20 * MB)])), 413, 'DOCUMENT_TOO_LARGE');
  });
  it('415 for a type not allowed by its magic bytes, whatever the client claims', async () => {
    await refused(() => upload(h, userHeaders, undefined, GIF, 'application/pdf'), 415, 'DOCUMENT_TYPE_UNSUPPORTED');
    await refused(() => upload(h, userHeaders, undefined, Buffer.from('just text, called a pdf'), 'application/pdf'), 415, 'DOCUMENT_TYPE_UNSUPPORTED');
  });
  it('400 for an encrypted or a malformed PDF', async () => {
    await refused(() => upload(h, userHeaders, undefined, makePdf({ encrypted: true })), 400, 'DOCUMENT_PDF_ENCRYPTED');
    const cut = makePdf().subarray(0, 200);
    await refused(() => upload(h, userHeaders, undefined, cut), 400, 'DOCUMENT_PDF_MALFORMED');
    const wrongOffset = Buffer.from(makePdf().toString('latin1').replace(/startxref\n\d+/, 'startxref\n15'), 'latin1');
    await refused(() => upload(h, userHeaders, undefined, wrongOffset), 400, 'DOCUMENT_PDF_MALFORMED');
  });
  it('415 for a JSON body (the file comes as multipart); 400 for a form without its file, with two files, or an unknown field', async () => {
    await refused(() => h.inject({ method: 'POST', url: '/user-documents', headers: userHeaders, payload: { type: 'identity', name: 'x' } }), 415, 'DOCUMENT_MULTIPART_REQUIRED');
    const noFile = multipartBody({ type: 'identity', name: 'x' }, []);
    await refused(() => h.inject({ method: 'POST', url: '/user-documents', headers: { ...userHeaders, 'content-type': noFile.contentType }, payload: noFile.payload }), 400, 'DOCUMENT_FORM_INVALID');
    const two = multipartBody({ type: 'identity', name: 'x' }, [
      { name: 'file', filename: 'a', type: 'image/png', content: PNG },
      { name: 'file', filename: 'b', type: 'image/png', content: PNG },
    ]);
    await refused(() => h.inject({ method: 'POST', url: '/user-documents', headers: { ...userHeaders, 'content-type': two.contentType }, payload: two.payload }), 400, 'DOCUMENT_FORM_INVALID');
    await refused(() => upload(h, userHeaders, { type: 'identity', name: 'x', admin: 'true' }, PNG), 400, 'DOCUMENT_FORM_INVALID');
    await refused(() => upload(h, userHeaders, { type: 'selfie', name: 'x' }, PNG), 400, 'DOCUMENT_FORM_INVALID');
    await refused(() => upload(h, userHeaders, { type: 'identity', name: 'a\u0000b' }, PNG), 400, 'DOCUMENT_FORM_INVALID');
  });
  it('an API key must name the user (400); an unknown user is 404; a user naming another user is 404', async () => {
    await refused(() => upload(h, h.keyHeaders(), { type: 'identity', name: 'x' }, PNG), 400, 'USER_ID_REQUIRED');
    await refused(() => upload(h, h.keyHeaders(), { type: 'identity', name: 'x', userId: crypto.randomUUID() }, PNG), 404, 'USER_NOT_FOUND');
    const other = await h.createUser();
    await refused(() => upload(h, userHeaders, { type: 'identity', name: 'x', userId: other }, PNG), 404, 'USER_NOT_FOUND');
  });
});

describe('POST /user-documents/from-url refusals (SSRF and limits; loopback admitted by the test-only setting)', () => {
  const fromUrl = (url: string) => () => h.inject({ method: 'POST', url: '/user-documents/from-url', headers: userHeaders, payload: { type: 'identity', name: 'x', url } });

  it('private IPv4, IPv6 (ULA, link-local, IPv4-mapped loopback) and metadata addresses, directly', async () => {
    for (const url of ['http://10.0.0.1/a.pdf', 'http://192.168.1.1/a.pdf', 'http://169.254.169.254/latest/meta-data/', 'http://[fd00::1]/a.pdf', 'http://[fe80::1]/a.pdf', 'http://[::ffff:10.0.0.1]/a.pdf', 'http://0.0.0.0/a.pdf', 'http://[::]/a.pdf']) {
      await refused(fromUrl(url), 400, 'DOCUMENT_URL_REFUSED');
    }
  });
  it('a redirect to the metadata address, to a private IPv4 or IPv6 address; more than 3 redirects', async () => {
    await refused(fromUrl(files.url('/metadata')), 400, 'DOCUMENT_URL_REFUSED');
    await refused(fromUrl(files.url('/private')), 400, 'DOCUMENT_URL_REFUSED');
    await refused(fromUrl(files.url('/ipv6')), 400, 'DOCUMENT_URL_REFUSED');
    await refused(fromUrl(files.url('/loop')), 400, 'DOCUMENT_URL_FETCH_FAILED');
  });
  it('an oversized answer (declared or streamed) is 413; a slow one times out; a 404 and a wrong type are refused', async () => {
    await refused(fromUrl(files.url('/big-declared')), 413, 'DOCUMENT_TOO_LARGE');
    await refused(fromUrl(files.url('/big-chunked')), 413, 'DOCUMENT_TOO_LARGE');
    await refused(fromUrl(files.url('/slow')), 400, 'DOCUMENT_URL_TIMEOUT');
    await refused(fromUrl(files.url('/missing')), 400, 'DOCUMENT_URL_FETCH_FAILED');
    await refused(fromUrl(files.url('/gif')), 415, 'DOCUMENT_TYPE_UNSUPPORTED');
  });
  it('URLs with credentials, other schemes, or no host are refused', async () => {
    await refused(fromUrl('http://user:pw@127.0.0.1/a.pdf'), 400, 'DOCUMENT_URL_REFUSED');
    await refused(fromUrl('file:///etc/passwd'), 400, 'DOCUMENT_URL_REFUSED');
    await refused(fromUrl('gopher://127.0.0.1/'), 400, 'DOCUMENT_URL_REFUSED');
    await refused(fromUrl('not a url at all'), 400, 'DOCUMENT_URL_REFUSED');
  });
});
