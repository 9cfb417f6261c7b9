import { AppError, CommonErrors } from '../../platform/http/errors.js';

export const UserErrors = {
  emailTaken: () => new AppError(409, 'USER_EMAIL_TAKEN', 'A user with this email already exists in the tenant'),
  phoneTaken: () => new AppError(409, 'USER_PHONE_TAKEN', 'This phone number is already linked to another account'),
  notFound: CommonErrors.userNotFound,
  invalidPhone: () =>
    new AppError(400, 'USER_PHONE_INVALID', 'body.phone must be a valid phone number in international format, e.g. +14155550123'),
  invalidEmail: () => new AppError(400, 'USER_EMAIL_INVALID', 'body.email must be a valid email address'),
};
