import { Type, type Static } from 'typebox';
import { EVM_ADDRESS_PATTERN } from '../../platform/crypto/evm-address.js';
import { Paged, PageQueryFields } from '../../platform/http/pagination.js';
import { DOCUMENT_MEDIA_TYPES, SIGNING_CHAINS, USER_DOCUMENT_TYPES } from './table.js';

const literals = <const T extends readonly string[]>(values: T) => Type.Enum<[...T]>(values);
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);
const Uuid = Type.String({ format: 'uuid' });
const DateTime = Type.String({ format: 'date-time' });
const Sha256 = Type.String({ pattern: '^[0-9a-f]{64}$', description: 'SHA-256 of the content, hex' });
const DocType = literals(USER_DOCUMENT_TYPES);
const Name = Type.String({ minLength: 1, maxLength: 200 });
const HttpsUrl = Type.String({ minLength: 8, maxLength: 2048, description: 'An https URL on a public address (private, loopback, link-local and metadata addresses are refused, on every redirect too)' });
const Metadata = Type.Record(Type.String({ maxLength: 100 }), Type.Unknown(), { description: 'Free JSON object (at most 16 KiB)' });

// ---- user documents

export const UserDocument = Type.Object({
  id: Uuid,
  userId: Uuid,
  type: DocType,
  name: Type.String(),
  mediaType: literals(DOCUMENT_MEDIA_TYPES),
  size: Type.Integer({ minimum: 0 }),
  sha256: Sha256,
  source: Type.String({ description: '`upload`, or the URL the document was imported from' }),
  /** Relative path of the download route (same credentials as this record). */
  contentUrl: Type.String({ description: 'Download route for the content; send the same credentials' }),
  createdAt: DateTime,
});
export type UserDocumentDto = Static<typeof UserDocument>;
export const UserDocumentList = Paged(UserDocument);

const UploadFields = {
  type: DocType,
  name: Name,
  userId: Type.Optional(Type.String({ format: 'uuid', description: 'The owner: required with an API key, optional for an admin, the caller otherwise' })),
};

/**
 * The multipart form, as documented. The parts are read and checked by the route (the body
 * validator sees no fields of a streamed form), so every property is optional here: type,
 * name and file are required, and the route says so (400) when one is missing.
 */
export const UploadForm = Type.Object(
  {
    type: Type.Optional(Type.String({ enum: [...USER_DOCUMENT_TYPES], description: 'Required' })),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Required' })),
    userId: Type.Optional(Type.String({ format: 'uuid', description: 'The owner: required with an API key, optional for an admin, the caller otherwise' })),
    file: Type.Optional(Type.String({ contentMediaType: 'application/octet-stream', format: 'binary', description: 'Required: the document (at most 20 MiB)' })),
  },
  { description: 'One file part named file, and the fields type, name and (API key) userId' },
);
/** The same fields as JSON: validated, then answered 415 (the file must come as multipart). */
export const UploadJson = Type.Object(UploadFields, { additionalProperties: false, description: 'Fields only; send them with the file as multipart/form-data' });
export const UploadFormFields = Type.Object(UploadFields, { additionalProperties: false });
export type UploadFields = Static<typeof UploadFormFields>;

export const FromUrlBody = Type.Object({ ...UploadFields, url: HttpsUrl }, { additionalProperties: false });
export type FromUrlInput = Static<typeof FromUrlBody>;

export const ListUserDocumentsQuery = Type.Object(
  { ...PageQueryFields, userId: Type.Optional(Type.String({ format: 'uuid' })), type: Type.Optional(DocType) },
  { additionalProperties: false },
);

// ---- tenant documents

export const TenantDocument = Type.Object({
  id: Uuid,
  title: Type.String(),
  metadata: Type.Record(Type.String(), Type.Unknown()),
  mediaType: literals(DOCUMENT_MEDIA_TYPES),
  size: Type.Integer({ minimum: 0 }),
  sha256: Sha256,
  source: Type.String(),
  contentUrl: Type.String(),
  signatures: Type.Integer({ minimum: 0, description: 'Signed copies recorded so far' }),
  createdAt: DateTime,
  updatedAt: DateTime,
  deletedAt: Nullable(DateTime),
});
export type TenantDocumentDto = Static<typeof TenantDocument>;
export const TenantDocumentList = Paged(TenantDocument);

export const CreateTenantDocumentBody = Type.Object(
  {
    title: Name,
    metadata: Type.Optional(Metadata),
    contentBase64: Type.Optional(Type.String({ minLength: 1, maxLength: 28_000_000, description: 'The file, base64 (at most 20 MiB decoded); or give url' })),
    url: Type.Optional(HttpsUrl),
  },
  { additionalProperties: false },
);
export type CreateTenantDocumentInput = Static<typeof CreateTenantDocumentBody>;

export const PatchTenantDocumentBody = Type.Object(
  { title: Type.Optional(Name), metadata: Type.Optional(Metadata) },
  { additionalProperties: false, description: 'Metadata only: the content of a document never changes (upload a new document instead)' },
);
export type PatchTenantDocumentInput = Static<typeof PatchTenantDocumentBody>;

// ---- signing

export const SignQuery = Type.Object(
  {
    address: Type.String({ minLength: 1, maxLength: 100, description: 'The signing wallet address' }),
    chainType: Type.String({ minLength: 1, maxLength: 10, description: '`evm` or `xrpl`' }),
  },
  { additionalProperties: false },
);

const Eip712 = Type.Object({
  domain: Type.Object({ name: Type.String(), version: Type.String(), chainId: Type.Integer() }),
  types: Type.Record(Type.String(), Type.Array(Type.Object({ name: Type.String(), type: Type.String() }))),
  primaryType: Type.String(),
  message: Type.Record(Type.String(), Type.Unknown()),
});

export const SigningMessage = Type.Object({
  documentId: Uuid,
  tenantId: Uuid,
  chainType: literals(SIGNING_CHAINS),
  address: Type.String(),
  documentSha256: Sha256,
  nonce: Type.String(),
  issuedAt: DateTime,
  expiresAt: DateTime,
  /** The canonical text (EIP-191 personal_sign for EVM; the XRPL message). */
  message: Type.String({ description: 'The canonical text: EIP-191 personal_sign text (evm) or the message (xrpl)' }),
  messageHex: Type.String({ description: 'The message as UTF-8 bytes, hex (what an XRPL key signs)' }),
  typedData: Type.Optional(Eip712),
});
export type SigningMessageDto = Static<typeof SigningMessage>;

const Hex = Type.String({ pattern: '^(0x)?[0-9a-fA-F]+$', minLength: 2, maxLength: 20_000 });

export const EvmSignBody = Type.Object(
  {
    address: Type.String({ pattern: EVM_ADDRESS_PATTERN }),
    nonce: Type.String({ minLength: 1, maxLength: 100 }),
    signature: Type.String({ pattern: '^0x([0-9a-fA-F]{2})+$', maxLength: 20_000 }),
    scheme: Type.Optional(literals(['eip712', 'eip191'] as const)),
  },
  { additionalProperties: false },
);
export type EvmSignInput = Static<typeof EvmSignBody>;

export const XrplSignBody = Type.Object(
  {
    address: Type.String({ minLength: 25, maxLength: 35 }),
    nonce: Type.String({ minLength: 1, maxLength: 100 }),
    signature: Hex,
    publicKey: Type.String({ pattern: '^([0-9a-fA-F]{66})$', description: 'The signing public key, hex (33 bytes: secp256k1 02/03, or ED + Ed25519)' }),
  },
  { additionalProperties: false },
);
export type XrplSignInput = Static<typeof XrplSignBody>;

export const SignedDocument = Type.Object({
  id: Uuid,
  documentId: Uuid,
  userId: Uuid,
  chainType: literals(SIGNING_CHAINS),
  address: Type.String(),
  scheme: Type.String({ description: 'eip712, eip191 or xrpl-message' }),
  signerKind: Type.String({ description: 'evm: eoa, contract (EIP-1271) or counterfactual (ERC-6492); xrpl: master or regular key' }),
  documentSha256: Sha256,
  payload: Type.Record(Type.String(), Type.Unknown(), { description: 'Exactly what was signed (typed data or message text and hex)' }),
  signature: Type.String(),
  publicKey: Nullable(Type.String()),
  nonce: Type.String(),
  signedAt: DateTime,
});
export type SignedDocumentDto = Static<typeof SignedDocument>;
export const SignedDocumentList = Paged(SignedDocument);

export const ListSignedQuery = Type.Object(
  { ...PageQueryFields, userId: Type.Optional(Type.String({ format: 'uuid' })), documentId: Type.Optional(Type.String({ format: 'uuid' })) },
  { additionalProperties: false },
);
