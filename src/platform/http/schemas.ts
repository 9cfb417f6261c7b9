import { Type } from 'typebox';

export const ErrorResponse = Type.Object(
  {
    statusCode: Type.Integer(),
    error: Type.String(),
    message: Type.String(),
    code: Type.Optional(Type.String({ description: 'Stable machine-readable error code' })),
  },
  { description: 'Error' },
);

const DESCRIPTIONS: Record<number, string> = {
  400: 'Bad request: validation failed (message names every bad field)',
  401: 'Missing or unknown x-tenant-id, or missing, invalid or expired credential',
  403: 'Valid credential with insufficient role or permissions',
  404: 'Not found, or belongs to another tenant',
  408: 'The request was not received in time',
  409: 'Conflict',
  413: 'Request body too large',
  414: 'A path segment of the URL is too long',
  415: 'The body is not JSON (send Content-Type: application/json)',
  429: 'Too many requests',
  431: 'The request line and headers are too large',
  500: 'Internal server error',
  503: 'Temporarily overloaded or shutting down; retry after the Retry-After header',
};

/** Error responses of a route; 400, 401 and 500 are added to every tenant-scoped route. */
export function errorResponses(...statuses: number[]) {
  const all = [...new Set([400, 401, ...statuses, 500])].sort((a, b) => a - b);
  return Object.fromEntries(
    all.map((status) => [status, { ...ErrorResponse, description: DESCRIPTIONS[status] ?? 'Error' }]),
  ) as Record<number, typeof ErrorResponse>;
}

/** The body of an operation that takes none: an empty object, or no body at all. */
export const EmptyBody = Type.Object({}, { additionalProperties: false, description: 'No fields; the body may be omitted' });

export const IdParam = Type.Object({ id: Type.String({ format: 'uuid' }) });
export const MessageResponse = Type.Object({ message: Type.String() });
