import pino from 'pino';

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
 * A data exception (class 22, e.g. `invalid input syntax for type uuid: "abc"`) quotes the
 * offending value in its message: the quoted parts are dropped, the rest is kept.
 */
function withoutQuotedValues(text: string, code: string | undefined): string {
  return code?.startsWith('22') ? text.replace(/"(?:[^"\\]|\\.)*"/g, '"[not logged]"') : text;
}

function scrub(error: unknown, depth: number): unknown {
  if (!(error instanceof Error) || depth > 5) return error;
  const source = error as Error & Record<string, unknown>;
  const code = typeof source.code === 'string' && SQLSTATE.test(source.code) ? source.code : undefined;
  const clean = (text: string) => withoutQuotedValues(withoutParams(text), code);
  const copy = new Error(clean(error.message)) as Error & Record<string, unknown>;
  Object.defineProperty(copy, 'name', { value: error.name, enumerable: false });
  copy.stack = error.stack === undefined ? undefined : clean(error.stack);
  for (const [key, value] of Object.entries(source)) {
    if (VALUE_FIELDS.has(key) || key === 'cause') continue;
    copy[key] = typeof value === 'string' ? clean(value) : value;
  }
  if (error.cause !== undefined) copy.cause = scrub(error.cause, depth + 1);
  return copy;
}

/**
 * pino's error serializer, applied to a copy of the error without the values of any failed
 * statement: the SQL text, the SQLSTATE code, the constraint and table stay, so an operator can
 * find the cause, but no email, name or token reaches the log.
 */
export function safeErrorSerializer(error: unknown): unknown {
  return pino.stdSerializers.err(scrub(error, 0) as Error);
}
