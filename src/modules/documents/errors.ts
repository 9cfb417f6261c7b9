import { AppError, CommonErrors } from '../../platform/http/errors.js';

export const DocumentErrors = {
  notFound: () => new AppError(404, 'DOCUMENT_NOT_FOUND', 'Document not found'),
  signedNotFound: () => new AppError(404, 'SIGNED_DOCUMENT_NOT_FOUND', 'Signed document not found'),
  /** One code for every module (src/platform/http/errors.ts). */
  userNotFound: CommonErrors.userNotFound,
  userIdRequired: () => new AppError(400, 'USER_ID_REQUIRED', 'userId is required with an API key'),
  empty: () => new AppError(400, 'DOCUMENT_EMPTY', 'The document is empty'),
  tooLarge: (max: number) => new AppError(413, 'DOCUMENT_TOO_LARGE', `The document is larger than ${max} bytes`),
  unsupportedType: (detected?: string) =>
    new AppError(415, 'DOCUMENT_TYPE_UNSUPPORTED', `The content is ${detected ? `of type ${detected}` : 'of no recognised type'}: PDF, PNG, JPEG, WebP or HEIC are accepted`),
  pdfMalformed: (why: string) => new AppError(400, 'DOCUMENT_PDF_MALFORMED', `The PDF is malformed: ${why}`),
  pdfEncrypted: () => new AppError(400, 'DOCUMENT_PDF_ENCRYPTED', 'Encrypted PDFs are not accepted'),
  multipartRequired: () => new AppError(415, 'DOCUMENT_MULTIPART_REQUIRED', 'Send the document as multipart/form-data with one file part'),
  formInvalid: (why: string) => new AppError(400, 'DOCUMENT_FORM_INVALID', why),
  urlRefused: (why: string) => new AppError(400, 'DOCUMENT_URL_REFUSED', why),
  urlTimeout: () => new AppError(400, 'DOCUMENT_URL_TIMEOUT', 'The URL did not answer in time'),
  urlFailed: (why: string) => new AppError(400, 'DOCUMENT_URL_FETCH_FAILED', `The URL could not be fetched: ${why}`),
  contentRequired: () => new AppError(400, 'DOCUMENT_CONTENT_REQUIRED', 'Give exactly one of contentBase64 and url'),
  base64Invalid: () => new AppError(400, 'DOCUMENT_BASE64_INVALID', 'contentBase64 is not base64'),
  chainInvalid: () => new AppError(400, 'ENUM_VALUE_UNKNOWN', 'chainType must be evm or xrpl'),
  addressInvalid: (chain: string) => new AppError(400, 'ADDRESS_INVALID', `address is not a valid ${chain} address`),
  nonceUnknown: () => new AppError(400, 'CHALLENGE_UNKNOWN', 'Unknown nonce: ask GET /tenant-documents/{id}/sign for a message'),
  nonceUsed: () => new AppError(400, 'CHALLENGE_USED', 'This nonce was already used'),
  nonceExpired: () => new AppError(400, 'CHALLENGE_EXPIRED', 'The signing message expired: ask for a new one'),
  nonceMismatch: (what: string) => new AppError(400, 'CHALLENGE_MISMATCH', `The nonce was issued for another ${what}`),
  signatureInvalid: () => new AppError(400, 'SIGNATURE_INVALID', 'The signature does not verify for this message and address'),
  alreadySigned: () => new AppError(409, 'DOCUMENT_ALREADY_SIGNED', 'This user already signed the document with this address'),
  chainUnavailable: () => new AppError(503, 'CHAIN_UNAVAILABLE', 'The EVM chain is not reachable to verify the signature; retry later', { 'retry-after': '5' }),
};
