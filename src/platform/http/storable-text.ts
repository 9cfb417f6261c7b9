/**
 * Text PostgreSQL cannot store as sent: the NUL character (refused by `text` and `jsonb`), and
 * unpaired UTF-16 surrogates (not Unicode; the driver would silently turn them into U+FFFD).
 */
const NUL = '\u0000';
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');

function storable(text: string): boolean {
  return !text.includes(NUL) && !LONE_SURROGATE.test(text);
}

const MAX_DEPTH = 32;

export interface InputProblem {
  /** Dotted path to the offending value ("" for the whole input). */
  path: string;
  message: string;
}

const TEXT_PROBLEM = 'must not contain NUL or unpaired surrogate characters';

/**
 * The first string or object key in `value` that PostgreSQL cannot store, or nesting deeper
 * than 32 levels (no route takes such input; walking it is work for nothing); undefined when
 * the whole value is fine.
 */
export function inputProblem(value: unknown, path = '', depth = 0): InputProblem | undefined {
  if (typeof value === 'string') return storable(value) ? undefined : { path, message: TEXT_PROBLEM };
  if (value === null || typeof value !== 'object') return undefined;
  if (depth >= MAX_DEPTH) return { path, message: `is nested deeper than ${MAX_DEPTH} levels` };
  const join = (key: string) => (path === '' ? key : `${path}.${key}`);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = inputProblem(value[i], join(String(i)), depth + 1);
      if (found) return found;
    }
    return undefined;
  }
  for (const [key, item] of Object.entries(value)) {
    if (!storable(key)) return { path: join(cleanText(key)), message: `(a field name) ${TEXT_PROBLEM}` };
    const found = inputProblem(item, join(key), depth + 1);
    if (found) return found;
  }
  return undefined;
}

/** The text with NUL removed and unpaired surrogates replaced by U+FFFD. */
export function cleanText(text: string): string {
  return storable(text) ? text : text.replaceAll(NUL, '').replace(LONE_SURROGATES, '\uFFFD');
}

/**
 * A copy of a parsed JSON value in which every string and key is storable (see cleanText).
 * For messages that must be applied even when their free text cannot be stored as sent
 * (signed provider webhooks); the raw bytes are kept separately for audit.
 */
export function cleanStorable<T>(value: T): T {
  if (typeof value === 'string') return cleanText(value) as T;
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item: unknown) => cleanStorable(item)) as T;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[cleanText(key)] = cleanStorable(item);
  return out as T;
}
