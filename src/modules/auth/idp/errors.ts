import { AppError } from '../../../platform/http/errors.js';

export const IdpErrors = {
  notConfigured: () => new AppError(404, 'IDP_NOT_CONFIGURED', 'No external identity provider is configured for this tenant'),
  redirectNotAllowed: () =>
    new AppError(400, 'REDIRECT_URL_NOT_ALLOWED', "query.redirectUrl is not on the tenant's allow-list of client URLs"),
  stateInvalid: (why: 'unknown' | 'expired' | 'used' | 'tenant') =>
    new AppError(
      400,
      'IDP_STATE_INVALID',
      {
        unknown: 'Unknown or altered state',
        expired: 'The login attempt expired; start again',
        used: 'This state was already used; start again',
        tenant: 'The state belongs to another tenant',
      }[why],
    ),
  configInvalid: (message: string) => new AppError(400, 'IDP_CONFIG_INVALID', message),
};

/**
 * Why a login with a valid state did not end in tokens (an OAuth-style error code and a
 * sentence). It reaches the client in the redirect's fragment, never as a page of the service.
 */
export class IdpLoginError extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
  ) {
    super(description);
    this.name = 'IdpLoginError';
  }
}
