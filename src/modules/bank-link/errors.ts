import { AppError } from '../../platform/http/errors.js';
import { ProviderError } from '../../platform/providers/errors.js';
import { BankLinkProviderError } from '../../providers/bank-link/port.js';

export const BankLinkErrors = {
  redirectNotAllowed: () =>
    new AppError(400, 'REDIRECT_URL_NOT_ALLOWED', "redirectUrl is not in the tenant's bank-link allow-list (an operator sets it with bank-link redirect-allow --tenant ID --redirect-allow URL...)"),
  publicTokenInvalid: () => new AppError(400, 'BANK_LINK_PUBLIC_TOKEN_INVALID', 'The public token is expired, already used, or not valid'),
  itemNotFound: () => new AppError(404, 'BANK_LINK_ITEM_NOT_FOUND', 'Item not found'),
  itemAlreadyLinked: () => new AppError(409, 'BANK_LINK_ITEM_ALREADY_LINKED', 'This item is already linked'),
  originatorNotFound: () => new AppError(404, 'BANK_LINK_ORIGINATOR_NOT_FOUND', 'Originator not found'),
  sandboxUnavailable: () => new AppError(404, 'BANK_LINK_SANDBOX_UNAVAILABLE', "The sandbox originator routes answer only while the tenant's bank-link environment is the sandbox"),
  credentialsInvalid: () => new AppError(400, 'BANK_LINK_SANDBOX_CREDENTIALS_INVALID', "clientId and secret are not the tenant's bank-link sandbox credentials"),
  /** One code and status for every kind (503 PROVIDER_NOT_CONFIGURED; src/platform/providers/errors.ts). */
  notConfigured: () => ProviderError.notConfigured('bank-link', 'plaid', 'the built-in sandbox is off'),
  providerRejected: (code: string) => new AppError(502, 'BANK_LINK_PROVIDER_ERROR', `The bank-link provider refused the request (${code})`),
  providerUnavailable: () => new AppError(502, 'BANK_LINK_PROVIDER_UNAVAILABLE', 'The bank-link provider could not be reached'),
  webhookUnauthorized: (why: string) => new AppError(401, 'WEBHOOK_SIGNATURE_INVALID', `Webhook signature rejected: ${why}`),
};

/** A provider failure as an answer: an expired public token is the caller's 400; the rest is 502. */
export function fromProviderError(error: unknown): unknown {
  if (!(error instanceof BankLinkProviderError)) return error;
  if (error.errorCode === 'INVALID_PUBLIC_TOKEN') return BankLinkErrors.publicTokenInvalid();
  if (error.errorCode === 'ORIGINATOR_NOT_FOUND') return BankLinkErrors.originatorNotFound();
  if (error.status === 0 || error.status >= 500) return BankLinkErrors.providerUnavailable();
  return BankLinkErrors.providerRejected(error.errorCode);
}

/** Runs a provider call, turning its failures into answers. */
export async function viaProvider<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw fromProviderError(error);
  }
}
