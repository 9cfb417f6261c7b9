import { AppError } from '../../../platform/http/errors.js';

export const IdpErrors = {
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
