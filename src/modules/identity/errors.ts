import { AppError } from '../../platform/http/errors.js';

export const IdentityErrors = {
  pathNotFound: (path: string) => new AppError(404, 'IDENTITY_PATH_NOT_FOUND', `No identity field at path ${path}`),
  userNotFound: () => new AppError(404, 'IDENTITY_USER_NOT_FOUND', 'User not found'),
  userIdRequired: () => new AppError(400, 'IDENTITY_USER_ID_REQUIRED', 'query.userId is required with an API key'),
};
