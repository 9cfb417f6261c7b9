import { AppError } from '../../platform/http/errors.js';

export const TenantErrors = {
  nameTaken: () => new AppError(409, 'TENANT_NAME_TAKEN', 'A tenant with this name already exists'),
  notFound: () => new AppError(404, 'TENANT_NOT_FOUND', 'Tenant not found'),
  apiKeyNotFound: () => new AppError(404, 'API_KEY_NOT_FOUND', 'API key not found or already revoked'),
  invalidScopes: () => new AppError(400, 'API_KEY_SCOPES_INVALID', 'Scopes are a non-empty list of: all, read-only, users, kyc, wallets, documents (all only alone or with read-only)'),
  invalidExpiry: () => new AppError(400, 'API_KEY_EXPIRY_INVALID', 'The expiry must be in the future'),
  invalidAppUrl: () => new AppError(400, 'TENANT_APP_URL_INVALID', 'The app URL must be an absolute http(s) URL'),
  invalidCorsOrigin: (origin: string) =>
    new AppError(400, 'TENANT_CORS_ORIGIN_INVALID', `"${origin.slice(0, 200)}" is not an origin: give scheme, host and port only (https://app.example.com), never *`),
  invalidName: () => new AppError(400, 'TENANT_NAME_INVALID', 'Tenant name must be 1 to 100 printable characters'),
};
