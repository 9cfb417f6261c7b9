import { AppError, CommonErrors } from '../../platform/http/errors.js';

export const AuthErrors = {
  userIdRequired: () => new AppError(400, 'USER_ID_REQUIRED', 'query.userId is required with an API key'),
  sessionNotFound: () => new AppError(404, 'SESSION_NOT_FOUND', 'Session not found or ended already'),
  invalidCredentials: () => new AppError(401, 'INVALID_CREDENTIALS', 'Invalid email or password'),
  invalidRefreshToken: () => new AppError(401, 'REFRESH_TOKEN_INVALID', 'Invalid or expired refresh token'),
  passwordLength: (field: string) =>
    new AppError(400, 'PASSWORD_POLICY', `body.${field} must be between 8 and 128 characters`),
  passwordCommon: (field: string) =>
    new AppError(400, 'PASSWORD_POLICY', `body.${field} is one of the most common passwords; choose another`),
  emailTaken: () => new AppError(409, 'USER_EMAIL_TAKEN', 'A user with this email already exists in the tenant'),
  busy: () =>
    new AppError(503, 'BUSY', 'Too many password operations in progress; retry shortly', { 'retry-after': '1' }),
  /** One code for every module (src/platform/http/errors.ts). */
  userNotFound: CommonErrors.userNotFound,
  invalidCode: () => new AppError(400, 'CODE_INVALID', 'Invalid or expired code'),
  invalidToken: () => new AppError(400, 'ONE_TIME_TOKEN_INVALID', 'Invalid or expired token'),
  invalidChallenge: () => new AppError(401, 'CHALLENGE_INVALID', 'Invalid or expired challenge'),
  twoFactorLocked: (retryAfterSec: number) =>
    new AppError(429, 'TWO_FACTOR_LOCKED', 'Too many failed second-factor attempts; try again later', {
      'retry-after': String(retryAfterSec),
    }),
  passkeyNotFound: () => new AppError(404, 'PASSKEY_NOT_FOUND', 'Passkey not found'),
  passkeyChallenge: () => new AppError(400, 'PASSKEY_CHALLENGE_INVALID', 'The passkey challenge is unknown, used or expired; begin again'),
  passkeyVerification: (why: string) => new AppError(400, 'PASSKEY_VERIFICATION_FAILED', `The passkey registration does not verify: ${why}`),
  passkeyTaken: () => new AppError(409, 'PASSKEY_ALREADY_REGISTERED', 'This passkey is registered already'),
  passkeyLimit: (max: number) => new AppError(409, 'PASSKEY_LIMIT_REACHED', `At most ${max} passkeys per user; remove one first`),
  passkeyLogin: () => new AppError(401, 'PASSKEY_LOGIN_FAILED', 'The passkey login is refused'),
  twoFactorAlreadyEnabled: () => new AppError(409, 'TWO_FACTOR_ALREADY_ENABLED', 'A second factor is already enabled'),
  twoFactorNotEnabled: () => new AppError(409, 'TWO_FACTOR_NOT_ENABLED', 'Two-factor authentication is not enabled'),
  wrongPassword: () => new AppError(403, 'PASSWORD_INCORRECT', 'The password is not correct'),
  throttled: (retryAfterSec: number) =>
    new AppError(429, 'RATE_LIMITED', 'Too many attempts; retry later', { 'retry-after': String(retryAfterSec) }),
};
