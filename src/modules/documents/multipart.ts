import type { FastifyRequest } from 'fastify';
import { AppError } from '../../platform/http/errors.js';
import { inputProblem } from '../../platform/http/storable-text.js';
import { MAX_DOCUMENT_BYTES } from './content.js';
import { DocumentErrors } from './errors.js';
import type { UploadFields } from './schemas.js';
import { USER_DOCUMENT_TYPES, type UserDocumentType } from './table.js';

/** Limits given to @fastify/multipart (busboy) for the upload route. */
export const MULTIPART_LIMITS = { fileSize: MAX_DOCUMENT_BYTES, files: 1, fields: 8, fieldSize: 1024, parts: 10, headerPairs: 50 };

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const FIELD_NAMES = new Set(['type', 'name', 'userId']);

/**
 * Reads the upload form: exactly one file part (`file`, buffered up to the limit) and the
 * fields type, name and optional userId, in any order. Framework errors become the service's
 * (413 over the size, 400 for a malformed form); no field is trusted beyond these checks.
 */
export async function readUploadForm(request: FastifyRequest): Promise<{ fields: UploadFields; bytes: Buffer }> {
  if (!request.isMultipart()) throw DocumentErrors.multipartRequired();
  const raw: Record<string, string> = {};
  let bytes: Buffer | undefined;
  try {
    for await (const part of request.parts()) {
      if (part.type === 'file') {
        if (part.fieldname !== 'file') {
          part.file.resume();
          throw DocumentErrors.formInvalid(`unexpected file part "${part.fieldname.slice(0, 40)}": the file goes in the part named file`);
        }
        bytes = await part.toBuffer();
        continue;
      }
      if (!FIELD_NAMES.has(part.fieldname)) throw DocumentErrors.formInvalid(`unknown field "${part.fieldname.slice(0, 40)}"`);
      if (part.fieldname in raw) throw DocumentErrors.formInvalid(`field ${part.fieldname} is given twice`);
      if (typeof part.value !== 'string' || part.valueTruncated) throw DocumentErrors.formInvalid(`field ${part.fieldname} is too long`);
      raw[part.fieldname] = part.value;
    }
  } catch (error) {
    throw translate(error);
  }
  const problem = inputProblem(raw);
  if (problem) throw DocumentErrors.formInvalid(`${problem.path} ${problem.message}`);
  if (!bytes) throw DocumentErrors.formInvalid('the form has no file part named file');
  const fields = checkFields(raw);
  return { fields, bytes };
}

function checkFields(raw: Record<string, string>): UploadFields {
  const missing = ['type', 'name'].filter((f) => raw[f] === undefined);
  if (missing.length > 0) throw DocumentErrors.formInvalid(`missing field${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`);
  if (!(USER_DOCUMENT_TYPES as readonly string[]).includes(raw.type!)) throw DocumentErrors.formInvalid(`type must be one of ${USER_DOCUMENT_TYPES.join(', ')}`);
  const name = raw.name!.trim();
  if (name.length < 1 || name.length > 200) throw DocumentErrors.formInvalid('name must be 1 to 200 characters');
  if (raw.userId !== undefined && !UUID_RE.test(raw.userId)) throw DocumentErrors.formInvalid('userId must be a UUID');
  return { type: raw.type as UserDocumentType, name, ...(raw.userId !== undefined ? { userId: raw.userId.toLowerCase() } : {}) };
}

function translate(error: unknown): unknown {
  if (error instanceof AppError) return error;
  const code = (error as { code?: string })?.code;
  if (code === 'FST_REQ_FILE_TOO_LARGE') return DocumentErrors.tooLarge(MAX_DOCUMENT_BYTES);
  if (code === 'FST_FILES_LIMIT') return DocumentErrors.formInvalid('one file per upload');
  if (code === 'FST_PARTS_LIMIT' || code === 'FST_FIELDS_LIMIT') return DocumentErrors.formInvalid('too many form parts');
  return DocumentErrors.formInvalid('the multipart body is malformed');
}
