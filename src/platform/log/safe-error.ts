import pino from 'pino';
import { pgErrorInfo } from '../db/pg-errors.js';

/**
 * Fields of database errors that can hold the values of a statement: Drizzle's `params`, and
 * PostgreSQL's `detail` ("Key (email)=(ada@example.com) already exists"), `where` and
 * `internalQuery`. Kept out of every log line.
 */
const VALUE_FIELDS = new Set(['params', 'parameters', 'detail', 'where', 'internalQuery', 'hint']);
const SQLSTATE = /^[0-9A-Z]{5}$/;

/** Drizzle's "Failed query: <sql>\nparams: <values>" keeps its SQL and loses its values. */
function withoutParams(text: string): string {
  return text.replace(/\nparams: [\s\S]*?(?=\n\s+at |$)/, '\nparams: [not logged]');
}

/**
 * Some PostgreSQL messages quote the offending value (`invalid input syntax for type uuid:
 * "abc"`, `value "99999999999" is out of range`): those quotes are dropped, the rest is kept.
 */
function withoutQuotedValues(text: string, code: string | undefined): string {
  return code ? text.replace(/(: |value )"(?:[^"\\]|\\.)*"/g, '$1"[not logged]"') : text;
}

function scrub(error: unknown, depth: number): unknown {
  if (!(error instanceof Error) || depth > 5) return error;
  const source = error as Error & Record<string, unknown>;
  const code = typeof source.code === 'string' && SQLSTATE.test(source.code) ? source.code : undefined;
  const clean = (text: string) => withoutQuotedValues(withoutParams(text), code);
  const copy = new Error(clean(error.message)) as Error & Record<string, unknown>;
  Object.defineProperty(copy, 'name', { value: error.name, enumerable: false, writable: true, configurable: true });
  copy.stack = error.stack === undefined ? undefined : clean(error.stack);
  for (const [key, value] of Object.entries(source)) {
    if (VALUE_FIELDS.has(key) || ['cause', 'name', 'message', 'stack'].includes(key)) continue;
    copy[key] = typeof value === 'string' ? clean(value) : value;
  }
  if (error.cause !== undefined) copy.cause = scrub(error.cause, depth + 1);
  // The SQLSTATE and constraint of the driver error, which the serializer would not show for a
  // wrapped one (as sqlState: the logger redacts every `code` field, OAuth codes among them).
  const info = depth === 0 ? pgErrorInfo(error) : undefined;
  if (info) {
    copy.sqlState = info.code;
    if (info.constraint) copy.constraint = info.constraint;
  }
  return copy;
}

/**
 * pino's error serializer, applied to a copy of the error without the values of any failed
 * statement: the SQL text, the SQLSTATE code, the constraint and table stay, so an operator can
 * find the cause, but no email, name or token reaches the log.
 */
export function safeErrorSerializer(error: unknown): unknown {
  try {
    return pino.stdSerializers.err(scrub(error, 0) as Error);
  } catch {
    // A serializer must never throw: the log line would be lost and the error handler with it.
    return { type: error instanceof Error ? error.name : typeof error, message: 'the error could not be serialized' };
  }
}
