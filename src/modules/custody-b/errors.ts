import { AppError } from '../../platform/http/errors.js';
import { ProviderError } from '../../platform/providers/errors.js';
import { CustodyBProviderError } from '../../providers/custody-b/port.js';

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
  /** One code and status for every kind (503 PROVIDER_NOT_CONFIGURED; src/platform/providers/errors.ts). */
  notConfigured: () => ProviderError.notConfigured('custody', 'custody-b'),
  providerRejected: (status: number, message: string) =>
    status === 409
      ? new AppError(409, 'CUSTODY_B_PROVIDER_CONFLICT', `The custody-b provider refused the request: ${message}`)
      : new AppError(400, 'CUSTODY_B_PROVIDER_REJECTED', `The custody-b provider refused the request: ${message}`),
  providerUnavailable: () => new AppError(502, 'CUSTODY_B_PROVIDER_UNAVAILABLE', 'The custody-b provider could not be reached or failed'),
};

/** A provider failure as an answer: a refused credential is 401; its other 4xx are 400/409; the rest 502. */
export function fromProviderError(error: unknown, stage: 'user' | 'service'): unknown {
  if (!(error instanceof CustodyBProviderError)) return error;
  // The service's own calls (its token, its key): a refusal is a misconfiguration, not the caller's fault.
  if (error.status === 0 || error.status >= 500 || (stage === 'service' && error.status !== 409)) return CustodyBErrors.providerUnavailable();
  if (error.status === 401 || error.status === 403) return CustodyBErrors.credentialRejected(error.providerMessage);
  return CustodyBErrors.providerRejected(error.status, error.providerMessage);
}

export async function viaProvider<T>(work: () => Promise<T>, stage: 'user' | 'service' = 'user'): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw fromProviderError(error, stage);
  }
}
