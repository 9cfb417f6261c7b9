import { createHash } from 'node:crypto';
import { IdempotencyErrors } from './errors.js';

/** Deeper requests are refused (400) rather than risk the stack: no real request nests this far. */
const MAX_DEPTH = 64;

/** Letters, digits and the URL-safe and base64 punctuation: UUIDs, ULIDs, base64 tokens, `order-42:retry`. */
const KEY_RE = /^[A-Za-z0-9._~+/=:-]{1,255}$/;

/**
 * Validates a client's idempotency key and returns it. A header value may be a quoted string,
 * as the IETF Idempotency-Key draft writes it (`"8e03978e-..."`); the quotes are not part of the key.
 */
export function parseIdempotencyKey(raw: unknown): string {
  if (typeof raw !== 'string') throw IdempotencyErrors.keyInvalid();
  const unquoted = raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"') ? raw.slice(1, -1) : raw;
  if (!KEY_RE.test(unquoted)) throw IdempotencyErrors.keyInvalid();
  return unquoted;
}

/**
 * Canonical JSON (RFC 8785 for values that came from JSON.parse): object members sorted by
 * key (UTF-16 code units), no whitespace, numbers and strings as JSON.stringify writes them.
 * Undefined members are left out, as JSON.stringify does.
 */
export function canonicalJson(value: unknown, depth = 0): string {
  if (depth > MAX_DEPTH) throw IdempotencyErrors.tooDeep();
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'number' && !Number.isFinite(value)) throw new TypeError('non-finite number in canonical JSON');
    return JSON.stringify(value) ?? 'null';
  }
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? 'null' : canonicalJson(item, depth + 1))).join(',')}]`;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return canonicalJson((value as { toJSON(): unknown }).toJSON(), depth + 1);
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, item]) => item !== undefined && typeof item !== 'function')
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([name, item]) => `${JSON.stringify(name)}:${canonicalJson(item, depth + 1)}`).join(',')}}`;
}

/** SHA-256 (hex) of the canonical JSON of a request: the fingerprint a repeat must match. */
export function requestHash(request: unknown): string {
  return createHash('sha256').update(canonicalJson(request)).digest('hex');
}
