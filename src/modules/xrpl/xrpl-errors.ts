import { AppError } from '../../platform/http/errors.js';
import { XrplLedgerError } from '../../providers/xrpl-ledger/port.js';

/** Errors of the XRPL wallet routes (/xrpl-secure-accounts, /non-custodian-xrpl). */
export const XrplErrors = {
  addressInvalid: (field = 'address') => new AppError(400, 'ADDRESS_INVALID', `${field} is not a valid XRPL classic address (checksum included)`),
  accountNotFound: () => new AppError(400, 'XRPL_ACCOUNT_NOT_FOUND', 'The account does not exist on the ledger (fund it first)'),
  accountNotSecured: () =>
    new AppError(400, 'XRPL_ACCOUNT_NOT_SECURED', 'The account has neither a SignerList nor a regular key: it is not a secure account'),
  secureAccountNotFound: () => new AppError(404, 'XRPL_SECURE_ACCOUNT_NOT_FOUND', 'Secure XRPL account not found'),
  walletNotFound: () => new AppError(404, 'WALLET_NOT_FOUND', 'XRPL wallet not found'),
  challengeUnknown: () => new AppError(400, 'CHALLENGE_UNKNOWN', 'The challenge was not issued by this service to this user'),
  challengeUsed: () => new AppError(400, 'CHALLENGE_USED', 'The challenge was already used; request a new one'),
  challengeExpired: () => new AppError(400, 'CHALLENGE_EXPIRED', 'The challenge expired; request a new one'),
  challengeAddress: () => new AppError(400, 'CHALLENGE_MISMATCH', 'The challenge was issued for another address'),
  signatureInvalid: () =>
    new AppError(400, 'SIGNATURE_INVALID', 'The signature does not verify with a key allowed to sign for the address'),
  quorumNotMet: (have: number, need: number) =>
    new AppError(400, 'XRPL_QUORUM_NOT_MET', `The signers' weights add up to ${have}; the account's SignerList needs ${need}`),
  alreadyExists: (kind: string) => new AppError(409, 'WALLET_EXISTS', `The user already has an ${kind} wallet`),
  signerAndColdRequired: () =>
    new AppError(409, 'XRPL_MULTISIG_PREREQUISITES', 'Multi-signature needs the user\'s signer (hot) wallet and a registered cold wallet'),
  signatureRequired: (address: string) =>
    new AppError(
      409,
      'XRPL_COLD_SIGNATURE_REQUIRED',
      `The service cannot sign for ${address} alone: prepare the transaction with POST /non-custodian-xrpl/sign-transaction and submit it signed at POST /non-custodian-xrpl/tx-submit`,
    ),
  noServiceKey: () => new AppError(409, 'XRPL_NO_SERVICE_KEY', 'The service holds no key for this wallet'),
  nothingToChange: () => new AppError(400, 'XRPL_SETTINGS_EMPTY', 'body names no setting to change'),
  transactionInvalid: (detail: string) => new AppError(400, 'TRANSACTION_INVALID', `body.transaction is not valid: ${detail}`),
  amountInvalid: (field: string) =>
    new AppError(400, 'AMOUNT_INVALID', `${field} must be a positive whole number of drops as a decimal string (or an issued-currency amount)`),
  blobInvalid: (detail: string) => new AppError(400, 'XRPL_BLOB_INVALID', `body.txBlob is not a signed XRPL transaction: ${detail}`),
  blobSignatureInvalid: (detail: string) => new AppError(400, 'XRPL_BLOB_SIGNATURE_INVALID', `body.txBlob's signature does not verify: ${detail}`),
  blobForeign: () => new AppError(400, 'XRPL_BLOB_FOREIGN_ACCOUNT', "body.txBlob's account is not one of the caller's XRPL wallets"),
  blobNoLastLedger: () =>
    new AppError(400, 'XRPL_BLOB_NO_LAST_LEDGER', 'body.txBlob has no LastLedgerSequence: without one a transaction can never be known to have failed'),
  refused: (engineResult: string, message: string) => new AppError(409, 'XRPL_TRANSACTION_REFUSED', `The ledger refused the transaction: ${engineResult} ${message}`.trim()),
  testSigningOff: () =>
    new AppError(404, 'XRPL_TEST_SIGNING_OFF', 'POST /non-custodian-xrpl/sign is for testing and is off here (XRPL_TEST_SIGNING=on turns it on outside production)'),
  ledgerUnavailable: () => new AppError(503, 'CHAIN_UNAVAILABLE', 'The XRPL ledger does not answer; retry later'),
  fundingFailed: () => new AppError(503, 'XRPL_FUNDING_FAILED', 'The account could not be funded from the faucet; retry later'),
};

/** Runs a ledger call; an unreachable ledger (or one that refuses the request) is a 503, never a 500. */
export async function onLedger<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof XrplLedgerError) throw XrplErrors.ledgerUnavailable();
    throw error;
  }
}
