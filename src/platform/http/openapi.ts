/**
 * Corrections to the OpenAPI document @fastify/swagger produces, applied once when it is built:
 * - a parameter with a default is optional (Ajv fills the default in; `limit` and `offset`);
 * - a request body is required only when its schema requires a field: the service takes a
 *   missing body as an empty object (input.ts);
 * - the error codes of the catalogue (error-catalogue.ts): the whole list with status and meaning
 *   at the top (`x-error-codes`), and on each error answer of each operation the codes of that
 *   status (`x-error-codes`, the `code` field of the body);
 * - the audit event types (src/platform/audit/types.ts) with their meaning (`x-audit-types`).
 */
import { AUDIT_TYPES } from '../audit/types.js';
import { ERROR_CATALOGUE } from './error-catalogue.js';

type Json = Record<string, unknown>;

function requiresField(schema: Json | undefined): boolean {
  if (!schema) return false;
  if (Array.isArray(schema.required) && schema.required.length > 0) return true;
  const alternatives = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
  return Array.isArray(alternatives) && alternatives.every((alt) => alt.type !== 'null' && requiresField(alt));
}

const HTTP_CODES = Object.entries(ERROR_CATALOGUE).filter(([, entry]) => !entry.meaning.startsWith('CLI:'));

/** The catalogue's codes answered with this status, sorted. */
export function errorCodesOfStatus(status: number): string[] {
  return HTTP_CODES.filter(([, entry]) => entry.status === status)
    .map(([code]) => code)
    .sort();
}

export function openApiFixups(document: { openapiObject: object } | { swaggerObject: object }): Json {
  const doc = ('openapiObject' in document ? document.openapiObject : document.swaggerObject) as Json;
  const paths = (doc.paths ?? {}) as Record<string, Record<string, Json>>;
  for (const operations of Object.values(paths)) {
    for (const operation of Object.values(operations)) {
      for (const parameter of (operation.parameters ?? []) as Json[]) {
        const schema = parameter.schema as Json | undefined;
        if (parameter.in !== 'path' && schema && 'default' in schema) parameter.required = false;
      }
      const body = operation.requestBody as { required?: boolean; content?: Record<string, { schema?: Json }> } | undefined;
      if (body) body.required = Object.values(body.content ?? {}).some((media) => requiresField(media.schema));
      for (const [status, response] of Object.entries((operation.responses ?? {}) as Record<string, Json>)) {
        if (Number(status) >= 400) response['x-error-codes'] = errorCodesOfStatus(Number(status));
      }
    }
  }
  doc['x-error-codes'] = HTTP_CODES.map(([code, { status, meaning }]) => ({ code, status, meaning }));
  // The audit event types GET /audit-events answers (src/platform/audit/types.ts), with their meaning.
  doc['x-audit-types'] = Object.entries(AUDIT_TYPES).map(([type, meaning]) => ({ type, meaning }));
  return doc;
}
