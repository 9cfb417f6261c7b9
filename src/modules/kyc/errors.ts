import { AppError } from '../../platform/http/errors.js';

export const KycErrors = {
  notFound: () => new AppError(404, 'KYC_NOT_FOUND', 'KYC record not found'),
  invalidTransition: (from: string, to: string) =>
    new AppError(409, 'KYC_TRANSITION_INVALID', `A KYC record in status ${from} cannot move to ${to}`),
  /** For POST /kyc/kyc with an API key (userId is required by the body schema, so never answered today). */
  userIdRequired: () => new AppError(400, 'USER_ID_REQUIRED', 'body.userId is required with an API key'),
  webhookTenantUnknown: () => new AppError(401, 'WEBHOOK_TENANT_UNKNOWN', 'Unknown tenant'),
  webhookMalformed: (detail: string) => new AppError(400, 'WEBHOOK_MALFORMED', `Malformed webhook: ${detail}`),
  invalidAddress: (chain: string) => new AppError(400, 'ADDRESS_INVALID', `body.address is not a valid ${chain} address`),
};
