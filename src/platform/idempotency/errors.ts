import { AppError } from '../http/errors.js';

export const IdempotencyErrors = {
  keyInvalid: () =>
    new AppError(400, 'IDEMPOTENCY_KEY_INVALID', 'The idempotency key must be 1 to 255 characters of letters, digits and . _ - : ~ + / ='),
  keyRequired: () => new AppError(400, 'IDEMPOTENCY_KEY_REQUIRED', 'This request needs an idempotency key (Idempotency-Key header or idempotentId)'),
  keyMismatch: () =>
    new AppError(400, 'IDEMPOTENCY_KEY_MISMATCH', 'The Idempotency-Key header and the idempotentId field name different keys'),
  tooDeep: () => new AppError(400, 'REQUEST_TOO_DEEP', 'The request nests values more than 64 levels deep'),
  keyReused: () =>
    new AppError(409, 'IDEMPOTENCY_KEY_REUSED', 'This idempotency key was already used for a different request'),
  inProgress: () =>
    new AppError(409, 'IDEMPOTENCY_IN_PROGRESS', 'A request with this idempotency key is still being processed; retry shortly', {
      'retry-after': '1',
    }),
};
