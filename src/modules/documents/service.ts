import type { CallContext } from '../../platform/http/context.js';
import { auditActor } from '../../platform/audit/actor.js';
import type { Actor } from '../../platform/audit/actor.js';
import { newId, type Clock } from '../../platform/clock.js';
import type { DbOrTx } from '../../platform/db/client.js';
import type { RunInTx } from '../../platform/db/tx.js';
import { writeTogether } from '../../platform/db/write-together.js';
import { appendEvent, appendEventStatement } from '../../platform/events/outbox.js';
import {
  getOutbound,
  OutboundFetchError,
  OutboundRefusedError,
  OutboundTooLargeError,
  type OutboundPolicy,
} from '../../platform/http/outbound.js';
import type { Page, PageParams } from '../../platform/http/pagination.js';
import type { BlobStore } from '../../providers/storage/port.js';
import type { AuditService } from '../audit/service.js';
import { ownedBy } from '../users/acting-for.js';
import type { UsersService } from '../users/service.js';
import { detectDocumentType, MAX_DOCUMENT_BYTES } from './content.js';
import { DocumentErrors } from './errors.js';
import type { DocumentsRepo } from './repo.js';
import type {
  CreateTenantDocumentInput,
  PatchTenantDocumentInput,
  TenantDocumentDto,
  UploadFields,
  UserDocumentDto,
} from './schemas.js';
import type { DocumentMediaType, TenantDocumentRow, UserDocumentRow, UserDocumentType } from './table.js';


export interface FetchSettings {
  policy: OutboundPolicy;
  timeoutMs: number;
  maxRedirects: number;
}

const MAX_METADATA_BYTES = 16 * 1024;

export function toUserDocumentDto(row: UserDocumentRow): UserDocumentDto {
  return {
    id: row.id,
    userId: row.userId,
    type: row.type,
    name: row.name,
    mediaType: row.mediaType,
    size: row.size,
    sha256: row.blobKey,
    source: row.source,
    contentUrl: `/user-documents/${row.id}/content`,
    createdAt: row.createdAt.toISOString(),
  };
}

export function toTenantDocumentDto(row: TenantDocumentRow, signatures: number): TenantDocumentDto {
  return {
    id: row.id,
    title: row.title,
    metadata: row.metadata,
    mediaType: row.mediaType,
    size: row.size,
    sha256: row.blobKey,
    source: row.source,
    contentUrl: `/tenant-documents/${row.id}/content`,
    signatures,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    deletedAt: row.deletedAt?.toISOString() ?? null,
  };
}

/** Content checked and stored: the blob is written before any row points at it. */
interface Stored {
  key: string;
  size: number;
  mediaType: DocumentMediaType;
}

/**
 * User documents and tenant documents: content checked by its magic bytes, stored in the blob
 * store (content-addressed, before the row), rows with an audit entry and an outbox event in
 * one transaction.
 */
export function createDocumentsService(deps: {
  repo: DocumentsRepo;
  db: DbOrTx;
  tx: RunInTx;
  clock: Clock;
  store: BlobStore;
  users: UsersService;
  audit: AuditService;
  fetch: FetchSettings;
}) {
  const { repo, db, tx, clock, store, users, audit } = deps;

  async function storeContent(bytes: Buffer): Promise<Stored> {
    if (bytes.length > MAX_DOCUMENT_BYTES) throw DocumentErrors.tooLarge(MAX_DOCUMENT_BYTES);
    const mediaType = await detectDocumentType(bytes);
    const put = await store.put(bytes, { contentType: mediaType, maxBytes: MAX_DOCUMENT_BYTES });
    return { key: put.key, size: put.size, mediaType };
  }

  /** Fetches a URL under the SSRF policy; every refusal and failure is a 4xx and stores nothing. */
  async function fetchContent(url: string): Promise<Buffer> {
    try {
      const answer = await getOutbound(url, { timeoutMs: deps.fetch.timeoutMs, maxBytes: MAX_DOCUMENT_BYTES, maxRedirects: deps.fetch.maxRedirects }, deps.fetch.policy);
      return answer.body;
    } catch (error) {
      if (error instanceof OutboundRefusedError) throw DocumentErrors.urlRefused(error.message);
      if (error instanceof OutboundTooLargeError) throw DocumentErrors.tooLarge(MAX_DOCUMENT_BYTES);
      if (error instanceof OutboundFetchError) {
        if (error.reason === 'TIMEOUT') throw DocumentErrors.urlTimeout();
        throw DocumentErrors.urlFailed(error.message);
      }
      const name = (error as { name?: string })?.name;
      if (name === 'AbortError' || name === 'TimeoutError') throw DocumentErrors.urlTimeout();
      throw DocumentErrors.urlFailed((error as { code?: string })?.code ?? 'network error');
    }
  }

  /** The owner a call acts for: the own-record rule of the users module. */
  function ownerOf(ctx: CallContext, requested: string | undefined): Promise<string> {
    return users.actingFor(ctx, requested, DocumentErrors.userIdRequired);
  }

  /**
   * The row, its audit entry and its event as one statement (writeTogether): atomic on its own,
   * one round trip, no BEGIN/COMMIT. The row is built here, so it is answered as written.
   */
  async function createUserDocument(tenantId: string, userId: string, fields: { type: UserDocumentType; name: string }, stored: Stored, source: string, actor: Actor) {
    const row: UserDocumentRow = { tenantId, id: newId(), userId, type: fields.type, name: fields.name, blobKey: stored.key, mediaType: stored.mediaType, size: stored.size, source, createdAt: clock.now() };
    const facts = { documentId: row.id, kind: 'user' as const, type: row.type, sha256: row.blobKey, size: row.size };
    await writeTogether(db, [
      repo.insertUserDocumentStatement(row, db),
      audit.statement(tenantId, { type: 'document.uploaded', ...auditActor(actor), subjectUserId: userId, details: facts }),
      appendEventStatement(db, tenantId, 'document.uploaded', { documentId: row.id, kind: 'user', userId, type: row.type, sha256: row.blobKey, mediaType: row.mediaType, size: row.size, actor }),
    ]);
    return toUserDocumentDto(row);
  }

  async function countSignatures(tenantId: string, id: string, db?: DbOrTx) {
    return repo.countSignatures(tenantId, id, db);
  }

  return {
    /** Resolves who a new document belongs to (before its content is read or stored). */
    ownerOf,

    async upload(tenantId: string, userId: string, fields: Omit<UploadFields, 'userId'>, bytes: Buffer, actor: Actor): Promise<UserDocumentDto> {
      const stored = await storeContent(bytes);
      return createUserDocument(tenantId, userId, fields, stored, 'upload', actor);
    },

    async importFromUrl(tenantId: string, userId: string, fields: Omit<UploadFields, 'userId'>, url: string, actor: Actor): Promise<UserDocumentDto> {
      const stored = await storeContent(await fetchContent(url));
      return createUserDocument(tenantId, userId, fields, stored, url, actor);
    },

    async listUserDocuments(ctx: CallContext, requested: string | undefined, filters: { type?: UserDocumentType }, page: PageParams): Promise<Page<UserDocumentDto>> {
      const { tenantId } = ctx;
      const userId = await ownerOf(ctx, requested);
      const { total, rows } = await repo.listUserDocuments(tenantId, userId, filters, page);
      return { total, data: rows.map(toUserDocumentDto) };
    },

    /** A user sees their own documents; an API key or admin any of the tenant's. */
    /** True when every id names a document of this user (accreditation claims cite them). */
    async ownsAll(tenantId: string, userId: string, ids: string[]): Promise<boolean> {
      const unique = [...new Set(ids)];
      return (await repo.userDocumentIdsOf(tenantId, userId, unique)).length === unique.length;
    },

    async getUserDocumentRow(ctx: CallContext, id: string): Promise<UserDocumentRow> {
      const { tenantId } = ctx;
      return ownedBy(ctx, await repo.findUserDocument(tenantId, id), DocumentErrors.notFound);
    },

    async createTenantDocument(tenantId: string, input: CreateTenantDocumentInput, actor: Actor): Promise<TenantDocumentDto> {
      if ((input.contentBase64 === undefined) === (input.url === undefined)) throw DocumentErrors.contentRequired();
      const metadata = checkMetadata(input.metadata);
      let bytes: Buffer;
      if (input.contentBase64 !== undefined) {
        const compact = input.contentBase64.replace(/\s+/g, '');
        if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 !== 0) throw DocumentErrors.base64Invalid();
        if ((compact.length / 4) * 3 > MAX_DOCUMENT_BYTES + 2) throw DocumentErrors.tooLarge(MAX_DOCUMENT_BYTES);
        bytes = Buffer.from(compact, 'base64');
      } else {
        bytes = await fetchContent(input.url!);
      }
      const stored = await storeContent(bytes);
      return tx(async (db) => {
        const now = clock.now();
        const row = await repo.insertTenantDocument(
          tenantId,
          { id: newId(), title: input.title, metadata, blobKey: stored.key, mediaType: stored.mediaType, size: stored.size, source: input.url ?? 'upload', createdAt: now, updatedAt: now, deletedAt: null },
          db,
        );
        await audit.record(db, tenantId, {
          type: 'document.uploaded',
          ...auditActor(actor),
          details: { documentId: row.id, kind: 'tenant', sha256: row.blobKey, size: row.size },
        });
        await appendEvent(db, tenantId, 'document.uploaded', { documentId: row.id, kind: 'tenant', sha256: row.blobKey, mediaType: row.mediaType, size: row.size, actor });
        return toTenantDocumentDto(row, 0);
      });
    },

    async listTenantDocuments(tenantId: string, page: PageParams): Promise<Page<TenantDocumentDto>> {
      const { total, rows } = await repo.listTenantDocuments(tenantId, page);
      const data = await Promise.all(rows.map(async (row) => toTenantDocumentDto(row, await countSignatures(tenantId, row.id))));
      return { total, data };
    },

    async getTenantDocumentRow(tenantId: string, id: string): Promise<TenantDocumentRow> {
      const row = await repo.findTenantDocument(tenantId, id);
      if (!row) throw DocumentErrors.notFound();
      return row;
    },

    async getTenantDocument(tenantId: string, id: string): Promise<TenantDocumentDto> {
      const row = await repo.findTenantDocument(tenantId, id);
      if (!row) throw DocumentErrors.notFound();
      return toTenantDocumentDto(row, await countSignatures(tenantId, id));
    },

    /** Title and metadata only: the content (and so its hash, which signatures bind) never changes. */
    async patchTenantDocument(tenantId: string, id: string, input: PatchTenantDocumentInput, actor: Actor): Promise<TenantDocumentDto> {
      const metadata = input.metadata === undefined ? undefined : checkMetadata(input.metadata);
      return tx(async (db) => {
        const row = await repo.findTenantDocument(tenantId, id, db, true);
        if (!row) throw DocumentErrors.notFound();
        const updated = await repo.updateTenantDocument(tenantId, id, { ...(input.title !== undefined ? { title: input.title } : {}), ...(metadata ? { metadata } : {}), updatedAt: clock.now() }, db);
        await audit.record(db, tenantId, {
          type: 'document.updated',
          ...auditActor(actor),
          details: { documentId: id, fields: Object.keys(input) },
        });
        return toTenantDocumentDto(updated, await countSignatures(tenantId, id, db));
      });
    },

    /** Soft delete: the row and its blob stay, so signed copies keep their hash and content. */
    async deleteTenantDocument(tenantId: string, id: string, actor: Actor): Promise<TenantDocumentDto> {
      return tx(async (db) => {
        const row = await repo.findTenantDocument(tenantId, id, db, true);
        if (!row) throw DocumentErrors.notFound();
        const now = clock.now();
        const deleted = await repo.updateTenantDocument(tenantId, id, { deletedAt: now, updatedAt: now }, db);
        await audit.record(db, tenantId, { type: 'document.deleted', ...auditActor(actor), details: { documentId: id } });
        return toTenantDocumentDto(deleted, await countSignatures(tenantId, id, db));
      });
    },

    async openContent(key: string) {
      const stream = await store.get(key);
      if (!stream) throw DocumentErrors.notFound();
      return stream;
    },
  };
}

function checkMetadata(metadata: Record<string, unknown> | undefined): Record<string, unknown> {
  const value = metadata ?? {};
  if (Buffer.byteLength(JSON.stringify(value)) > MAX_METADATA_BYTES) throw DocumentErrors.formInvalid(`metadata is larger than ${MAX_METADATA_BYTES} bytes`);
  return value;
}

export type DocumentsService = ReturnType<typeof createDocumentsService>;
