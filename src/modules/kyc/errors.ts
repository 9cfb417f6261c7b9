import { AppError } from '../../platform/http/errors.js';
import { ProviderError } from '../../platform/providers/errors.js';
import { UserErrors } from '../users/errors.js';

export const KycErrors = {
  notFound: () => new AppError(404, 'KYC_NOT_FOUND', 'KYC record not found'),
  /** One code for every module: the users module's. */
  userNotFound: UserErrors.notFound,
  invalidTransition: (from: string, to: string) =>
    new AppError(409, 'KYC_TRANSITION_INVALID', `A KYC record in status ${from} cannot move to ${to}`),
  providerUnavailable: (provider: string) =>
    new AppError(502, 'KYC_PROVIDER_UNAVAILABLE', `The identity-verification provider ${provider} could not be reached`),
  providerRejected: (provider: string) =>
    new AppError(502, 'KYC_PROVIDER_ERROR', `The identity-verification provider ${provider} refused the request`),
  /** One code and status for every kind (503 PROVIDER_NOT_CONFIGURED; src/platform/providers/errors.ts). */
  providerNotConfigured: (provider: string) => ProviderError.notConfigured('idv', provider),
  signatureMissing: () => new AppError(401, 'WEBHOOK_SIGNATURE_MISSING', 'The x-hmac-signature header is required'),
  signatureInvalid: () => new AppError(401, 'WEBHOOK_SIGNATURE_INVALID', 'The webhook signature does not match'),
  webhookTenantUnknown: () => new AppError(401, 'WEBHOOK_TENANT_UNKNOWN', 'Unknown tenant'),
  webhookMalformed: (detail: string) => new AppError(400, 'WEBHOOK_MALFORMED', `Malformed webhook: ${detail}`),
  invalidAddress: (chain: string) => new AppError(400, 'ADDRESS_INVALID', `body.address is not a valid ${chain} address`),
};
