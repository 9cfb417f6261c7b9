import pino, { type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from '../../config.js';
import { safeErrorSerializer } from './safe-error.js';

/** Query parameters whose values are secrets (reset tokens, OAuth codes and state, ...). */
const SECRET_QUERY = /^(token|code|state|refreshToken|accessToken|apiKey|api_key|password|secret|otp|challengeToken)$/i;

/** The URL with secret query values replaced, so a link like ?token=... never reaches a log. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const params = new URLSearchParams(url.slice(q + 1));
  let changed = false;
  for (const key of [...params.keys()]) {
    if (SECRET_QUERY.test(key)) {
      params.set(key, '[REDACTED]');
      changed = true;
    }
  }
  return changed ? `${url.slice(0, q)}?${params.toString()}` : url;
}

export const SECRET_FIELDS = [
  'password',
  'newPassword',
  'currentPassword',
  'token',
  'accessToken',
  'refreshToken',
  'challengeToken',
  'code',
  'otp',
  'secret',
  'clientSecret',
  'apiKey',
  'privateKey',
  'seed',
];

export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers["x-api-key"]',
  ...SECRET_FIELDS.map((f) => f),
  ...SECRET_FIELDS.map((f) => `*.${f}`),
  ...SECRET_FIELDS.map((f) => `*.*.${f}`),
];

interface RequestLike {
  method: string;
  url: string;
  ip?: string;
  headers: Record<string, unknown>;
}

export function createLogger(level: LogLevel, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      redact: { paths: REDACT_PATHS, censor: '[REDACTED]' },
      serializers: {
        // Only what an operator needs; never headers, so no credential can slip through.
        req: (req: RequestLike) => ({
          method: req.method,
          url: redactUrl(req.url),
          tenant: typeof req.headers['x-tenant-id'] === 'string' ? req.headers['x-tenant-id'] : undefined,
          remoteAddress: req.ip,
        }),
        // Database errors without the values of the failed statement.
        err: safeErrorSerializer,
      },
    },
    destination,
  );
}
