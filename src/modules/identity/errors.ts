import { AppError, CommonErrors } from '../../platform/http/errors.js';

export const IdentityErrors = {
  pathNotFound: (path: string) => new AppError(404, 'IDENTITY_PATH_NOT_FOUND', `No identity field at path ${path}`),
  /** One code for every module (src/platform/http/errors.ts). */
  userNotFound: CommonErrors.userNotFound,
  userIdRequired: () => new AppError(400, 'USER_ID_REQUIRED', 'query.userId is required with an API key'),
};
