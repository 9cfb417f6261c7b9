import type { Static, TSchema } from 'typebox';
import { Compile } from 'typebox/compile';

/** What an adapter makes of an answer that does not fit: its own provider error. */
export type AnswerFailure = (detail: string) => Error;

export interface ProviderAnswer<T extends TSchema> {
  /**
   * The provider's answer when it has the shape the adapter needs; else throws `fail(detail)`,
   * the adapter's provider error (which its module answers as 502), never a TypeError later.
   */
  parse(value: unknown, fail: AnswerFailure): Static<T>;
}

/**
 * The shape an adapter needs from a provider's 2xx answer, compiled once (call at module
 * load). Only what the adapter reads is required; other fields may come and go.
 */
export function providerAnswer<T extends TSchema>(what: string, schema: T): ProviderAnswer<T> {
  const validator = Compile(schema);
  return {
    parse(value, fail) {
      if (validator.Check(value)) return value as Static<T>;
      const first = validator.Errors(value)[0];
      const where = first ? ` (${first.instancePath || 'the body'}: ${first.message})` : '';
      throw fail(`${what}: the answer does not have the expected shape${where}`);
    },
  };
}

/** A JSON body read from text: undefined when it is not JSON (an HTML page, a cut answer). */
export function jsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
