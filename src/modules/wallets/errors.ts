import { AppError, CommonErrors } from '../../platform/http/errors.js';

/** Registry errors (every wallet kind) and the Sign-In with Ethereum failures of POST /evm-eoas. */
export const WalletErrors = {
  notFound: () => new AppError(404, 'WALLET_NOT_FOUND', 'Wallet not found'),
  /** One code for every module (src/platform/http/errors.ts). */
  userNotFound: CommonErrors.userNotFound,
  userIdRequired: () => new AppError(400, 'USER_ID_REQUIRED', 'querystring.userId is required with an API key or an admin token'),
  addressInvalid: (chain: string) => new AppError(400, 'ADDRESS_INVALID', `The address is not a valid ${chain} address`),
  networkInvalid: () => new AppError(400, 'NETWORK_INVALID', 'The network must be a chain id (EVM) or a network name (XRPL)'),
  addressTaken: () => new AppError(409, 'WALLET_ADDRESS_TAKEN', 'This address is already registered to another user'),
  kindConflict: (kind: string) => new AppError(409, 'WALLET_KIND_CONFLICT', `This address is already registered as a ${kind} wallet`),
  chainUnavailable: () => new AppError(503, 'CHAIN_UNAVAILABLE', 'The EVM chain does not answer; retry later'),
};

export const SiweErrors = {
  messageInvalid: (detail: string) => new AppError(400, 'SIWE_MESSAGE_INVALID', `body.message is not a valid EIP-4361 message: ${detail}`),
  signatureInvalid: () => new AppError(400, 'SIGNATURE_INVALID', 'body.signature does not verify for the address of the message'),
  signatureMalleated: () =>
    new AppError(400, 'SIWE_SIGNATURE_MALLEATED', 'body.signature has a high s value (a malleated signature); sign again'),
  nonceUnknown: () => new AppError(400, 'CHALLENGE_UNKNOWN', 'The nonce was not issued by GET /evm-eoas/challenge'),
  nonceUsed: () => new AppError(400, 'CHALLENGE_USED', 'The nonce was already used; request a new challenge'),
  nonceForeign: () => new AppError(400, 'CHALLENGE_MISMATCH', 'The nonce was issued to another user'),
  nonceExpired: () => new AppError(400, 'CHALLENGE_EXPIRED', 'The nonce expired; request a new challenge'),
  domainMismatch: (expected: string) => new AppError(400, 'SIWE_DOMAIN_MISMATCH', `The message must be for the domain ${expected}`),
  uriMismatch: (expected: string) => new AppError(400, 'SIWE_URI_MISMATCH', `The message must be for the URI ${expected}`),
  chainMismatch: (expected: number) => new AppError(400, 'SIWE_CHAIN_MISMATCH', `The message must be for chain id ${expected}`),
  messageExpired: () => new AppError(400, 'SIWE_MESSAGE_EXPIRED', 'The message expired (expirationTime)'),
  notYetValid: () => new AppError(400, 'SIWE_MESSAGE_NOT_YET_VALID', 'The message is not valid yet (notBefore)'),
};
