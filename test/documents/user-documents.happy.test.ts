import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { and, eq } from 'drizzle-orm';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents } from '../../src/modules/audit/table.js';
import { createStorage } from '../../src/providers/storage/select.js';
import { sweepOrphans } from '../../src/providers/storage/sweep.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { outbox } from '../helpers/outbox.js';
import { fileServer, makePdf, PNG, upload } from './fixtures.js';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** The same journey on each storage back end: the local directory, then S3 (s3rver). */
function journey(label: string, open: () => Promise<{ h: Harness; close: () => Promise<void> }>) {
  describe(`user documents (${label})`, () => {
    let h: Harness;
    let close: () => Promise<void>;
    let files: Awaited<ReturnType<typeof fileServer>>;
    const pdf = makePdf({ text: label });
    beforeAll(async () => {
      ({ h, close } = await open());
      files = await fileServer({
        '/statement.pdf': (_req, res) => res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(pdf),
        '/moved': (_req, res) => res.writeHead(302, { location: '/statement.pdf' }).end(),
      });
    });
    afterAll(async () => {
      await files.close();
      await close();
    });

    it('a user uploads a PDF (multipart): 201 with type by content, size, SHA-256; audit row and document.uploaded event', async () => {
      expect(createStorage(h.container.config).kind).toBe(label);
      const userId = await h.createUser();
      const token = await h.tokenFor(userId);
      // The client claims text/plain: the magic bytes decide.
      const res = await upload(h, h.bearerHeaders(token), { type: 'identity', name: 'Passport' }, pdf, 'text/plain');
      expect(res.statusCode, res.body).toBe(201);
      const doc = res.json();
      expect(doc).toMatchObject({ userId, type: 'identity', name: 'Passport', mediaType: 'application/pdf', size: pdf.length, sha256: sha256(pdf), source: 'upload', contentUrl: `/user-documents/${doc.id}/content` });

      const read = await h.api(h.bearerHeaders(token)).GET('/user-documents/{id}', { params: { path: { id: doc.id } } });
      expect(read.response.status).toBe(200);
      expect(read.data).toEqual(doc);
      // The content is raw bytes (its own media type): read through inject.
      const content = await h.inject({ method: 'GET', url: doc.contentUrl, headers: h.bearerHeaders(token) });
      expect(content.statusCode).toBe(200);
      expect(content.headers['content-type']).toBe('application/pdf');
      expect(content.rawPayload.equals(pdf)).toBe(true);

      expect((await outbox(h, undefined, 'document.uploaded')).filter((e) => e.payload.documentId === doc.id)).toHaveLength(1);
      const audit = await h.database.db.select().from(auditEvents).where(and(eq(auditEvents.tenantId, h.tenant.tenantId), eq(auditEvents.type, 'document.uploaded'), eq(auditEvents.subjectUserId, userId)));
      expect(audit).toHaveLength(1);
      // The blob is kept by storage gc: the module claims it.
      const module = h.container.modules.find((m) => m.name === 'documents')!;
      expect(await module.referencesBlob!(doc.sha256)).toBe(true);
      expect(await module.referencesBlob!('0'.repeat(64))).toBe(false);
    });

    it('an API key uploads for a user (userId field), lists by user and type, pages', async () => {
      const userId = await h.createUser();
      const a = await upload(h, h.keyHeaders(), { type: 'tax', name: 'W-9', userId }, PNG, 'image/png');
      expect(a.statusCode, a.body).toBe(201);
      expect(a.json()).toMatchObject({ userId, mediaType: 'image/png', type: 'tax' });
      const b = await upload(h, h.keyHeaders(), { userId, type: 'identity', name: 'ID' });
      expect(b.statusCode, b.body).toBe(201);

      const key = h.api(h.keyHeaders());
      const all = await key.GET('/user-documents', { params: { query: { userId } } });
      expect(all.data).toMatchObject({ total: 2, data: [{ id: b.json().id }, { id: a.json().id }] });
      const tax = await key.GET('/user-documents', { params: { query: { userId, type: 'tax' } } });
      expect(tax.data).toMatchObject({ total: 1, data: [{ id: a.json().id }] });
      const page = await key.GET('/user-documents', { params: { query: { userId, limit: 1, offset: 1 } } });
      expect(page.data).toMatchObject({ total: 2, data: [{ id: a.json().id }] });
      // The owner sees the same list without naming themself.
      const own = await h.api(h.bearerHeaders(await h.tokenFor(userId))).GET('/user-documents');
      expect(own.data!.total).toBe(2);
    });

    it('imports from a URL (served on loopback, through a redirect): 201 with the source URL', async () => {
      const userId = await h.createUser();
      const token = await h.tokenFor(userId);
      const res = await h.api(h.bearerHeaders(token)).POST('/user-documents/from-url', { body: { type: 'proof_of_address', name: 'Statement', url: files.url('/moved') } });
      expect(res.response.status, JSON.stringify(res.error)).toBe(201);
      expect(res.data).toMatchObject({ userId, type: 'proof_of_address', mediaType: 'application/pdf', sha256: sha256(pdf), source: files.url('/moved') });
      const content = await h.inject({ method: 'GET', url: res.data!.contentUrl, headers: h.bearerHeaders(token) });
      expect(content.rawPayload.equals(pdf)).toBe(true);
    });
  });
}

describe('storage gc and documents', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(async () => h.close());

  it('the sweep keeps an aged blob a document points at and removes an aged orphan', async () => {
    const store = createStorage(h.container.config);
    const res = await upload(h, h.keyHeaders(), { type: 'other', name: 'Kept', userId: await h.createUser() }, makePdf({ text: 'kept' }));
    const kept = res.json().sha256 as string;
    const orphan = (await store.put(makePdf({ text: 'orphan' }))).key;
    const references = h.container.modules.flatMap((m) => (m.referencesBlob ? [{ name: m.name, isReferenced: m.referencesBlob }] : []));
    const result = await sweepOrphans(store, { olderThanMs: 24 * 3_600_000, now: new Date(Date.now() + 48 * 3_600_000), references });
    expect(result).toMatchObject({ checkedBy: ['documents'], referenced: 1, removed: 1 });
    expect(await store.head(kept)).toBeDefined();
    expect(await store.head(orphan)).toBeUndefined();
  });
});

journey('local', async () => {
  const h = await createHarness({ documents: { allowLoopbackUrls: true } });
  return { h, close: () => h.close() };
});

journey('s3', async () => {
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: mkdtempSync(join(tmpdir(), 'bastion-s3rver-')), configureBuckets: [{ name: 'documents' }] });
  const { port } = await server.run();
  const h = await createHarness({
    documents: { allowLoopbackUrls: true },
    env: { S3_ENDPOINT: `http://127.0.0.1:${port}`, S3_BUCKET: 'documents', S3_ACCESS_KEY_ID: 'S3RVER', S3_SECRET_ACCESS_KEY: 'S3RVER', S3_REGION: 'us-east-1' },
  });
  return {
    h,
    close: async () => {
      await h.close();
      await server.close();
    },
  };
});
