import { fileTypeFromBuffer } from 'file-type';
import { DocumentErrors } from './errors.js';
import { DOCUMENT_MEDIA_TYPES, type DocumentMediaType } from './table.js';

/** The largest document accepted, by upload, import or base64 (20 MiB). */
export const MAX_DOCUMENT_BYTES = 20 * 1024 * 1024;

const HEIF_BRANDS = new Set(['image/heic', 'image/heif', 'image/heic-sequence', 'image/heif-sequence']);
const TAIL_BYTES = 2048;

/**
 * The media type of the content, from its magic bytes (file-type), never from what the client
 * says: PDF, PNG, JPEG, WebP or HEIC (HEIF brands count as HEIC); anything else is a 415. A PDF
 * must also look whole and unencrypted (see checkPdf).
 */
export async function detectDocumentType(bytes: Buffer): Promise<DocumentMediaType> {
  if (bytes.length === 0) throw DocumentErrors.empty();
  const detected = await fileTypeFromBuffer(bytes);
  const mime = detected && HEIF_BRANDS.has(detected.mime) ? 'image/heic' : detected?.mime;
  if (!mime || !(DOCUMENT_MEDIA_TYPES as readonly string[]).includes(mime)) throw DocumentErrors.unsupportedType(detected?.mime);
  if (mime === 'application/pdf') checkPdf(bytes);
  return mime as DocumentMediaType;
}

/**
 * A structural check of a PDF, not a full parse: the header names a version, the file ends
 * with `startxref <offset>` and `%%EOF`, the offset lies inside the file and points at a cross
 * reference table or stream object, and no `/Encrypt` dictionary is named (an encrypted PDF
 * cannot be read by reviewers, nor hashed into what its signers saw).
 */
export function checkPdf(bytes: Buffer): void {
  const head = bytes.subarray(0, 16).toString('latin1');
  if (!/^%PDF-(1\.[0-7]|2\.0)/.test(head)) throw DocumentErrors.pdfMalformed('the header names no PDF version');
  const tail = bytes.subarray(Math.max(0, bytes.length - TAIL_BYTES)).toString('latin1');
  const match = /startxref\s+(\d+)\s+%%EOF\s*$/.exec(tail);
  if (!match) throw DocumentErrors.pdfMalformed('it does not end with startxref and %%EOF');
  const offset = Number(match[1]);
  if (!Number.isSafeInteger(offset) || offset <= 0 || offset >= bytes.length) throw DocumentErrors.pdfMalformed('startxref points outside the file');
  const atXref = bytes.subarray(offset, offset + 32).toString('latin1');
  if (!/^(xref\b|\d+\s+\d+\s+obj\b)/.test(atXref)) throw DocumentErrors.pdfMalformed('startxref does not point at a cross-reference section');
  if (bytes.includes('/Encrypt')) throw DocumentErrors.pdfEncrypted();
}
