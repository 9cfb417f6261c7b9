/**
 * Corrections to the OpenAPI document @fastify/swagger produces, applied once when it is built:
 * - a parameter with a default is optional (Ajv fills the default in; `limit` and `offset`);
 * - a request body is required only when its schema requires a field: the service takes a
 *   missing body as an empty object (input.ts).
 */
type Json = Record<string, unknown>;

function requiresField(schema: Json | undefined): boolean {
  if (!schema) return false;
  if (Array.isArray(schema.required) && schema.required.length > 0) return true;
  const alternatives = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
  return Array.isArray(alternatives) && alternatives.every((alt) => alt.type !== 'null' && requiresField(alt));
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
    }
  }
  return doc;
}
