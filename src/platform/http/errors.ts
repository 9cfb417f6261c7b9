import { STATUS_CODES } from 'node:http';
import type { ErrorCode, ErrorStatus } from './error-catalogue.js';

/**
 * A domain or protocol error with a stable machine-readable code. The error handler turns it
 * into `{ statusCode, error, message, code }`. The code is one of the catalogue
 * (src/platform/http/error-catalogue.ts) and the status the one it lists for that code.
 */
export class AppError<C extends ErrorCode = ErrorCode> extends Error {
  constructor(
    readonly statusCode: ErrorStatus<C>,
    readonly code: C,
    message: string,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export function httpStatusText(statusCode: number): string {
  return STATUS_CODES[statusCode] ?? 'Error';
}

/** Errors shared by every module. Each module adds its own in its errors.ts. */
export const CommonErrors = {
  tenantRequired: () => new AppError(401, 'TENANT_REQUIRED', 'The x-tenant-id header is required'),
  tenantUnknown: () => new AppError(401, 'TENANT_UNKNOWN', 'Unknown tenant'),
  credentialsRequired: () => new AppError(401, 'CREDENTIALS_REQUIRED', 'Authentication is required'),
  invalidApiKey: () => new AppError(401, 'API_KEY_INVALID', 'Invalid API key'),
  invalidToken: () => new AppError(401, 'TOKEN_INVALID', 'Invalid or expired access token'),
  forbidden: () => new AppError(403, 'FORBIDDEN', 'Insufficient role or permissions'),
  validation: (message: string) => new AppError(400, 'VALIDATION_FAILED', message),
  /** One code for every module (a user of the tenant the caller may not see is not found either). */
  userNotFound: () => new AppError(404, 'USER_NOT_FOUND', 'User not found'),
  routeNotFound: (method: string, url: string) =>
    new AppError(404, 'ROUTE_NOT_FOUND', `Route ${method} ${url.split('?')[0]} not found`),
};
