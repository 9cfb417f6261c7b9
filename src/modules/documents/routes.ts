import multipart from '@fastify/multipart';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { Access } from '../../platform/http/access.js';
import { contextOf } from '../../platform/http/context.js';
import { PageQueryFields } from '../../platform/http/pagination.js';
import { EmptyBody, errorResponses, IdParam } from '../../platform/http/schemas.js';
import { MAX_DOCUMENT_BYTES } from './content.js';
import { DocumentErrors } from './errors.js';
import { MULTIPART_LIMITS, readUploadForm } from './multipart.js';
import {
  CreateTenantDocumentBody,
  EvmSignBody,
  FromUrlBody,
  ListSignedQuery,
  ListUserDocumentsQuery,
  PatchTenantDocumentBody,
  SignedDocument,
  SignedDocumentList,
  SigningMessage,
  SignQuery,
  TenantDocument,
  TenantDocumentList,
  UploadForm,
  UploadJson,
  UserDocument,
  UserDocumentList,
  XrplSignBody,
} from './schemas.js';
import { toUserDocumentDto, type DocumentsService } from './service.js';
import type { SigningService } from './signing-service.js';

const Binary = Type.Unsafe<unknown>({ type: 'string', format: 'binary', description: 'The document content, with its detected media type' });
/** Base64 of the largest document, plus room for the other fields. */
const TENANT_DOCUMENT_BODY_LIMIT = Math.ceil((MAX_DOCUMENT_BYTES * 4) / 3) + 64 * 1024;

async function sendContent(reply: FastifyReply, documents: DocumentsService, row: { blobKey: string; mediaType: string; size: number; id: string }) {
  const stream = await documents.openContent(row.blobKey);
  return reply
    .type(row.mediaType)
    .header('content-length', String(row.size))
    .header('content-disposition', `attachment; filename="${row.id}"`)
    .header('cache-control', 'private, no-store')
    .send(stream);
}

export async function documentsRoutes(app: FastifyInstance, deps: { documents: DocumentsService; signing: SigningService }): Promise<void> {
  const { documents, signing } = deps;

  // The upload route alone parses multipart/form-data (its own scope keeps the parser there).
  await app.register(async (scope) => {
    await scope.register(multipart, { limits: MULTIPART_LIMITS, throwFileSizeLimit: true });
    scope.withTypeProvider<TypeBoxTypeProvider>().post(
      '/user-documents',
      {
        config: { auth: Access.apiKeyOrUser },
        schema: {
          tags: ['Documents'],
          summary: 'Upload a user document: multipart/form-data with one file part `file` (20 MiB; PDF, PNG, JPEG, WebP or HEIC by content) and fields type, name, userId',
          body: { content: { 'multipart/form-data': { schema: UploadForm }, 'application/json': { schema: UploadJson } } } as never,
          response: { 201: UserDocument, ...errorResponses(403, 404, 413, 415) },
        },
      },
      async (request, reply) => {
        if (!request.isMultipart()) throw DocumentErrors.multipartRequired();
        const { fields, bytes } = await readUploadForm(request);
        const userId = await documents.ownerOf(contextOf(request, Access.apiKeyOrUser), fields.userId);
        const created = await documents.upload(request.tenant.id, userId, { type: fields.type, name: fields.name }, bytes, contextOf(request, Access.apiKeyOrUser).actor);
        return reply.status(201).send(created);
      },
    );
  });

  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['Documents'];

  r.post(
    '/user-documents/from-url',
    {
      config: { auth: Access.apiKeyOrUser },
      schema: {
        tags,
        summary: 'Import a user document from an https URL (public addresses only, at most 3 redirects, 20 MiB, time-limited)',
        body: FromUrlBody,
        response: { 201: UserDocument, ...errorResponses(403, 404, 413, 415) },
      },
    },
    async (request, reply) => {
      const { userId: requested, url, type, name } = request.body;
      const userId = await documents.ownerOf(contextOf(request, Access.apiKeyOrUser), requested);
      return reply.status(201).send(await documents.importFromUrl(request.tenant.id, userId, { type, name: name.trim() }, url, contextOf(request, Access.apiKeyOrUser).actor));
    },
  );

  r.get(
    '/user-documents',
    {
      config: { auth: Access.apiKeyOrUser },
      schema: {
        tags,
        summary: "A user's documents, newest first (the caller's; an API key or admin passes userId); filter by type",
        querystring: ListUserDocumentsQuery,
        response: { 200: UserDocumentList, ...errorResponses(403, 404) },
      },
    },
    async (request) => {
      const { userId, type, limit, offset } = request.query;
      return documents.listUserDocuments(contextOf(request, Access.apiKeyOrUser), userId, { type }, { limit, offset });
    },
  );

  r.get(
    '/user-documents/:id',
    {
      config: { auth: Access.apiKeyOrUser },
      schema: { tags, summary: 'A user document: metadata, and contentUrl to download it', params: IdParam, response: { 200: UserDocument, ...errorResponses(403, 404) } },
    },
    async (request) => toUserDocumentDto(await documents.getUserDocumentRow(contextOf(request, Access.apiKeyOrUser), request.params.id)),
  );

  r.get(
    '/user-documents/:id/content',
    {
      config: { auth: Access.apiKeyOrUser },
      schema: { tags, summary: "A user document's content (same access as its record)", params: IdParam, response: { 200: Binary, ...errorResponses(403, 404) } },
    },
    async (request, reply) => sendContent(reply, documents, await documents.getUserDocumentRow(contextOf(request, Access.apiKeyOrUser), request.params.id)),
  );

  // ---- tenant documents

  r.post(
    '/tenant-documents',
    {
      config: { auth: Access.apiKeyOrAdmin },
      bodyLimit: TENANT_DOCUMENT_BODY_LIMIT,
      schema: {
        tags,
        summary: 'Create a tenant document for users to sign: title, metadata, and the file as contentBase64 or an https url',
        body: CreateTenantDocumentBody,
        response: { 201: TenantDocument, ...errorResponses(403, 413, 415) },
      },
    },
    async (request, reply) => reply.status(201).send(await documents.createTenantDocument(request.tenant.id, request.body, contextOf(request, Access.apiKeyOrAdmin).actor)),
  );

  r.get(
    '/tenant-documents',
    {
      config: { auth: Access.apiKeyOrAdmin },
      schema: { tags, summary: "The tenant's documents (not deleted), newest first", querystring: Type.Object(PageQueryFields, { additionalProperties: false }), response: { 200: TenantDocumentList, ...errorResponses(403) } },
    },
    async (request) => documents.listTenantDocuments(request.tenant.id, request.query),
  );

  r.get(
    '/tenant-documents/:id',
    {
      config: { auth: Access.apiKeyOrUser },
      schema: { tags, summary: 'A tenant document (readable by the tenant\'s users, to sign it)', params: IdParam, response: { 200: TenantDocument, ...errorResponses(403, 404) } },
    },
    async (request) => documents.getTenantDocument(request.tenant.id, request.params.id),
  );

  r.get(
    '/tenant-documents/:id/content',
    {
      config: { auth: Access.apiKeyOrUser },
      schema: { tags, summary: "A tenant document's content", params: IdParam, response: { 200: Binary, ...errorResponses(403, 404) } },
    },
    async (request, reply) => sendContent(reply, documents, await documents.getTenantDocumentRow(request.tenant.id, request.params.id)),
  );

  r.patch(
    '/tenant-documents/:id',
    {
      config: { auth: Access.apiKeyOrAdmin },
      schema: { tags, summary: 'Change title and metadata (the content never changes)', params: IdParam, body: PatchTenantDocumentBody, response: { 200: TenantDocument, ...errorResponses(403, 404) } },
    },
    async (request) => documents.patchTenantDocument(request.tenant.id, request.params.id, request.body, contextOf(request, Access.apiKeyOrAdmin).actor),
  );

  r.delete(
    '/tenant-documents/:id',
    {
      config: { auth: Access.apiKeyOrAdmin },
      schema: { tags, summary: 'Soft-delete: no longer listed or signable; signed copies stay verifiable', params: IdParam, body: EmptyBody, response: { 200: TenantDocument, ...errorResponses(403, 404) } },
    },
    async (request) => documents.deleteTenantDocument(request.tenant.id, request.params.id, contextOf(request, Access.apiKeyOrAdmin).actor),
  );

  // ---- signing

  r.get(
    '/tenant-documents/:id/sign',
    {
      config: { auth: Access.user },
      schema: {
        tags,
        summary: 'The message to sign: EIP-712 typed data and EIP-191 text (evm) or the canonical message and its hex (xrpl); single-use nonce, 15 minutes',
        params: IdParam,
        querystring: SignQuery,
        response: { 200: SigningMessage, ...errorResponses(403, 404, 409) },
      },
    },
    async (request) => signing.message(request.tenant.id, contextOf(request, Access.user).userId, request.params.id, request.query.chainType, request.query.address),
  );

  r.post(
    '/tenant-documents/:id/sign',
    {
      config: { auth: Access.user },
      schema: {
        tags,
        summary: 'Sign with an EVM wallet: the signature of the typed data (eip712, default) or of the text (eip191); EIP-1271 and ERC-6492 wallets verify through the chain',
        params: IdParam,
        body: EvmSignBody,
        response: { 201: SignedDocument, ...errorResponses(403, 404, 409, 503) },
      },
    },
    async (request, reply) => reply.status(201).send(await signing.signEvm(request.tenant.id, contextOf(request, Access.user).userId, request.params.id, request.body, contextOf(request, Access.user).actor)),
  );

  r.post(
    '/tenant-documents/:id/sign/xrpl',
    {
      config: { auth: Access.user },
      schema: {
        tags,
        summary: "Sign with an XRPL wallet: the signature of messageHex and the public key (the address's master key or its regular key)",
        params: IdParam,
        body: XrplSignBody,
        response: { 201: SignedDocument, ...errorResponses(403, 404, 409) },
      },
    },
    async (request, reply) => reply.status(201).send(await signing.signXrpl(request.tenant.id, contextOf(request, Access.user).userId, request.params.id, request.body, contextOf(request, Access.user).actor)),
  );

  r.get(
    '/signed-documents',
    {
      config: { auth: Access.apiKeyOrUser },
      schema: { tags, summary: "Signed documents: the caller's; an API key or admin may filter by userId and documentId", querystring: ListSignedQuery, response: { 200: SignedDocumentList, ...errorResponses(403) } },
    },
    async (request) => {
      const { userId, documentId, limit, offset } = request.query;
      return signing.list(contextOf(request, Access.apiKeyOrUser), { userId, documentId }, { limit, offset });
    },
  );

  r.get(
    '/signed-documents/:id',
    {
      config: { auth: Access.apiKeyOrUser },
      schema: { tags, summary: 'A signed document: signer, address, chain, the signed payload, signature and document hash (re-verifiable offline)', params: IdParam, response: { 200: SignedDocument, ...errorResponses(403, 404) } },
    },
    async (request) => signing.get(contextOf(request, Access.apiKeyOrUser), request.params.id),
  );
}
