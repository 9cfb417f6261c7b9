import { fileTypeFromBuffer } from 'file-type';
import { DocumentErrors } from './errors.js';
import { DOCUMENT_MEDIA_TYPES, type DocumentMediaType } from './table.js';

/** The largest document accepted, by upload, import or base64 (20 MiB). */
export const MAX_DOCUMENT_BYTES = 20 * 1024 * 1024;

const HEIF_BRANDS = new Set(['image/heic', 'image/heif', 'image/heic-sequence', 'image/heif-sequence']);
const TAIL_BYTES = 2048;
const ENCRYPT = Buffer.from('/Encrypt', 'latin1');
/** The needle's rarest byte in PDFs (names are full of '/' and 'y' of /Type; 'E' is uncommon). */
const ENCRYPT_ANCHOR = ENCRYPT.indexOf('E');
/** In-place compares (the needle's first and last bytes matched too) before the search hands over to Buffer#includes. */
const ANCHOR_CHECKS = 4096;
/** Anchor bytes as dense as one in SPARSE bytes scanned (past the first FREE_HITS) hand over too: compressed or random bytes hold one in 256. */
const SPARSE = 128;
const FREE_HITS = 64;

/**
 * `bytes.includes(needle)`, answered the same, faster on the bytes a PDF holds: Buffer#includes
 * runs a general search over every byte (about 0.6 ms a MiB here, on the main thread), while
 * one byte of the needle is found by memchr (`indexOf` of a number) at several GB/s and
 * compressed streams hold it once in 256 bytes. At each hit the needle's first and last bytes
 * are looked at in place, and only where both match is the whole needle compared. Content whose
 * anchor bytes are denser than one in SPARSE, or that makes ANCHOR_CHECKS compares, hands over
 * to Buffer#includes from where it got to: no content costs much more than the general search.
 */
export function includesAt(bytes: Buffer, needle: Buffer, anchor: number): boolean {
  const first = needle[anchor]!;
  const last = needle.length - 1;
  const end = bytes.length - (needle.length - anchor);
  let at = bytes.indexOf(first, anchor);
  for (let hits = 0, compares = 0; at !== -1 && at <= end; hits++) {
    const start = at - anchor;
    if (compares === ANCHOR_CHECKS || (hits > FREE_HITS && hits * SPARSE > at)) return bytes.includes(needle, start);
    if (bytes[start] === needle[0] && bytes[start + last] === needle[last]) {
      compares++;
      if (bytes.compare(needle, 0, needle.length, start, start + needle.length) === 0) return true;
    }
    at = bytes.indexOf(first, at + 1);
  }
  return false;
}

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
  if (includesAt(bytes, ENCRYPT, ENCRYPT_ANCHOR)) throw DocumentErrors.pdfEncrypted();
}
