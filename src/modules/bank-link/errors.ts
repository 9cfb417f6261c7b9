import { AppError } from '../../platform/http/errors.js';

/**
 * The bank-link module's own answers. The provider's failures are ProviderErrors with the
 * codes its definition names (src/providers/bank-link/plaid/index.ts: 503
 * BANK_LINK_PROVIDER_UNAVAILABLE, 502 BANK_LINK_PROVIDER_ERROR); an object the provider does
 * not know becomes one of the 4xx below (notFoundAs).
 */
export const BankLinkErrors = {
  redirectNotAllowed: () =>
    new AppError(400, 'REDIRECT_URL_NOT_ALLOWED', "redirectUrl is not in the tenant's bank-link allow-list (an operator sets it with bank-link redirect-allow --tenant ID --redirect-allow URL...)"),
  publicTokenInvalid: () => new AppError(400, 'BANK_LINK_PUBLIC_TOKEN_INVALID', 'The public token is expired, already used, or not valid'),
  itemNotFound: () => new AppError(404, 'BANK_LINK_ITEM_NOT_FOUND', 'Item not found'),
  itemAlreadyLinked: () => new AppError(409, 'BANK_LINK_ITEM_ALREADY_LINKED', 'This item is already linked'),
  originatorNotFound: () => new AppError(404, 'BANK_LINK_ORIGINATOR_NOT_FOUND', 'Originator not found'),
  sandboxUnavailable: () => new AppError(404, 'BANK_LINK_SANDBOX_UNAVAILABLE', "The sandbox originator routes answer only while the tenant's bank-link environment is the sandbox"),
  credentialsInvalid: () => new AppError(400, 'BANK_LINK_SANDBOX_CREDENTIALS_INVALID', "clientId and secret are not the tenant's bank-link sandbox credentials"),
  webhookUnauthorized: (why: string) => new AppError(401, 'WEBHOOK_SIGNATURE_INVALID', `Webhook signature rejected: ${why}`),
};
