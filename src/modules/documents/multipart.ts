import type { FastifyRequest } from 'fastify';
import { AppError } from '../../platform/http/errors.js';
import { inputProblem } from '../../platform/http/storable-text.js';
import { MAX_DOCUMENT_BYTES } from './content.js';
import { DocumentErrors } from './errors.js';
import type { UploadFields } from './schemas.js';
import { USER_DOCUMENT_TYPES, type UserDocumentType } from './table.js';

/** Limits given to @fastify/multipart (busboy) for the upload route. */
export const MULTIPART_LIMITS = { fileSize: MAX_DOCUMENT_BYTES, files: 1, fields: 8, fieldSize: 1024, parts: 10, headerPairs: 50 };

/**
 * The most bytes of form read for one upload: the largest file plus room for the fields and the
 * part headers. busboy's limits truncate a part but keep reading it to its end (a field or file
 * that never ends is read forever), so the whole body is counted as it arrives and reading stops
 * here whatever the parser is doing.
 */
export const MAX_FORM_BYTES = MAX_DOCUMENT_BYTES + 64 * 1024;

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
  // Past the cap the request is unpiped (nothing more is parsed) and the answer is a 413; an
  // answer given before the body's end closes the connection (platform/http/connection.ts),
  // which also ends the parser's pending iteration.
  let received = 0;
  let stopReading: (error: AppError) => void = () => undefined;
  const overCap = new Promise<never>((_resolve, reject) => {
    stopReading = reject;
  });
  const count = (chunk: Buffer) => {
    received += chunk.length;
    if (received <= MAX_FORM_BYTES) return;
    request.raw.off('data', count);
    request.raw.unpipe();
    stopReading(DocumentErrors.tooLarge(MAX_DOCUMENT_BYTES));
  };
  const consume = async () => {
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
  };
  // consume() pipes the request into the parser before its first await; the count starts in
  // the same tick, before any chunk flows, so it sees every byte.
  const consumed = consume();
  request.raw.on('data', count);
  // Once the cap is passed, the parser's iteration ends with an error when the connection closes.
  consumed.catch(() => undefined);
  try {
    await Promise.race([consumed, overCap]);
  } catch (error) {
    throw translate(error);
  } finally {
    request.raw.off('data', count);
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
