import { AppError } from '../../platform/http/errors.js';

export const AccreditationErrors = {
  notFound: () => new AppError(404, 'ACCREDITATION_NOT_FOUND', 'Accreditation not found'),
  alreadyDecided: (status: string) => new AppError(409, 'ACCREDITATION_ALREADY_DECIDED', `The accreditation is already ${status}`),
  documentsUnknown: () =>
    new AppError(400, 'ACCREDITATION_DOCUMENT_UNKNOWN', "documentIds must name the user's own documents (POST /user-documents)"),
  userIdRequired: () => new AppError(400, 'USER_ID_REQUIRED', 'body.userId is required with an API key'),
};
