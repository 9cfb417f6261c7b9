import { AppError } from '../../platform/http/errors.js';
import { ProviderError } from '../../platform/providers/errors.js';

export const CustodyBErrors = {
  notRegistered: () => new AppError(404, 'CUSTODY_B_USER_NOT_REGISTERED', 'The caller has no custody-b account yet (GET /custody-b/users/challenge, then POST /custody-b/users)'),
  alreadyRegistered: () => new AppError(409, 'CUSTODY_B_USER_ALREADY_REGISTERED', 'The caller is registered with custody-b already'),
  registrationMissing: () =>
    new AppError(400, 'CUSTODY_B_REGISTRATION_CHALLENGE_MISSING', 'No registration challenge is open for the caller, or it expired: ask GET /custody-b/users/challenge again'),
  walletExists: (network: string) => new AppError(409, 'WALLET_EXISTS', `The caller has a custody-b wallet on ${network} already (one per network)`),
  walletNotFound: () => new AppError(404, 'WALLET_NOT_FOUND', 'The caller has no custody-b wallet with this address'),
  challengeInvalid: () => new AppError(400, 'CHALLENGE_UNKNOWN', "The signed challenge is unknown, or is not one of the caller's"),
  challengeUsed: () => new AppError(400, 'CHALLENGE_USED', 'The challenge was used already: ask for a new one'),
  challengeExpired: () => new AppError(400, 'CHALLENGE_EXPIRED', 'The challenge expired: ask for a new one'),
  challengeMismatch: () =>
    new AppError(400, 'CHALLENGE_MISMATCH', 'The challenge was issued for another request: the body must be the one the challenge was asked for'),
  credentialRejected: (detail: string) => new AppError(401, 'CUSTODY_B_CREDENTIAL_REJECTED', `The credential's signature was refused: ${detail}`),
  unknownNetwork: (network: string) => new AppError(400, 'NETWORK_INVALID', `Network ${network} is not a network custody-b wallets are opened on here (EVM networks, XrpLedger, XrpLedgerTestnet)`),
  badTypedData: (detail: string) => new AppError(400, 'CUSTODY_B_TYPED_DATA_INVALID', `The EIP-712 typed data is not valid: ${detail}`),
  badTransaction: (chain: 'EVM' | 'XRPL', detail: string) => new AppError(400, 'TRANSACTION_INVALID', `The transaction is not an unsigned serialized ${chain} transaction of the wallet: ${detail}`),
  providerConflict: (message: string) => new AppError(409, 'CUSTODY_B_PROVIDER_CONFLICT', `The custody-b provider refused the request as a conflict: ${message}`),
  providerRejected: (message: string) => new AppError(400, 'CUSTODY_B_PROVIDER_REJECTED', `The custody-b provider refused the request: ${message}`),
  /** The provider answered a signature without its encoded form. */
  signatureIncomplete: () => new AppError(502, 'CUSTODY_B_PROVIDER_UNAVAILABLE', 'custody-b answered a signature without its encoded form'),
};

/**
 * The provider's own conflict (409: the user exists there already, the wallet is being made)
 * is the module's 409 on every call; every other failure is the provider error as it is
 * (its reason's status, custody-b's codes in the definition).
 */
export async function conflictAs<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof ProviderError && error.reason === 'refused' && error.status === 409) throw CustodyBErrors.providerConflict(error.message);
    throw error;
  }
}

/**
 * A call made with the caller's own credential or content (a user action and what it
 * authorizes): the provider refusing the credential's signature is the caller's 401, refusing
 * the request (a transaction the ledger will not take) the caller's 400, its conflict 409.
 * Unreachable, malformed answers and the rest pass through as provider errors.
 */
export async function callerRefusalsAs<T>(work: Promise<T>): Promise<T> {
  try {
    return await conflictAs(work);
  } catch (error) {
    if (error instanceof ProviderError && error.reason === 'unauthorized') throw CustodyBErrors.credentialRejected(error.message);
    if (error instanceof ProviderError && error.reason === 'refused') throw CustodyBErrors.providerRejected(error.message);
    throw error;
  }
}
