/**
 * Malformed requests derived from a route's own schema, as published in /openapi.json (the
 * same TypeBox schema that validates it): a wrong type for each body field, an unknown field
 * where none is allowed, a body of the wrong shape, a query value out of range or of the wrong
 * type, and a path parameter that does not match its format. Each must be a 400.
 */

type Schema = {
  type?: string | string[];
  format?: string;
  pattern?: string;
  enum?: unknown[];
  const?: unknown;
  maximum?: number;
  minimum?: number;
  maxLength?: number;
  properties?: Record<string, Schema>;
  additionalProperties?: boolean | Schema;
  anyOf?: unknown;
  oneOf?: unknown;
  allOf?: unknown;
};

interface Parameter {
  in: 'query' | 'path' | 'header';
  name: string;
  schema?: Schema;
}

export interface Operation {
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
}

export interface MalformedRequest {
  what: string;
  url: string;
  payload?: unknown;
}

/** A value that no JSON-body validation of `schema` accepts, or undefined when none is certain. */
function wrongBodyValue(schema: Schema): unknown {
  if (schema.anyOf || schema.oneOf || schema.allOf || Array.isArray(schema.type)) return undefined;
  if (schema.enum || schema.const !== undefined) return { notIn: 'enum' };
  switch (schema.type) {
    case 'string':
      return { notA: 'string' };
    case 'number':
    case 'integer':
      return 'not-a-number';
    case 'boolean':
      return 'not-a-boolean';
    case 'object':
      return 'not-an-object';
    default:
      return undefined;
  }
}

/** A query or path value that fails `schema` (query strings are coerced, so pick values no coercion rescues). */
function wrongTextValue(schema: Schema, inPath = false): string | undefined {
  if (schema.anyOf || schema.oneOf || schema.allOf) return undefined;
  if (schema.type === 'integer' || schema.type === 'number') {
    return schema.maximum !== undefined ? String(schema.maximum + 1) : 'not-a-number';
  }
  if (schema.type === 'boolean') return 'not-a-boolean';
  if (schema.enum) return 'not-in-the-list';
  if (schema.type !== 'string') return undefined;
  if (schema.format === 'uuid') return 'not-a-uuid';
  if (schema.format === 'email') return 'not-an-email';
  // A path segment over 100 characters is a 414 from the router before any schema runs.
  if (schema.maxLength !== undefined && schema.maxLength < (inPath ? 100 : 2000)) return 'x'.repeat(schema.maxLength + 1);
  if (schema.pattern && !new RegExp(schema.pattern, 'u').test('!~')) return '!~';
  return undefined;
}

function withQuery(url: string, name: string, value: string): string {
  const parsed = new URL(url, 'http://x');
  parsed.searchParams.set(name, value);
  return parsed.pathname + parsed.search;
}

/** Replaces the segment of `url` that stands where `{name}` stands in `template`. */
function withPathParam(url: string, template: string, name: string, value: string): string | undefined {
  const parsed = new URL(url, 'http://x');
  const templateSegments = template.split('/');
  const segments = parsed.pathname.split('/');
  const index = templateSegments.indexOf(`{${name}}`);
  if (index < 0 || segments.length !== templateSegments.length) return undefined;
  segments[index] = encodeURIComponent(value);
  return segments.join('/') + parsed.search;
}

export function malformedRequests(template: string, operation: Operation, url: string, payload: unknown): MalformedRequest[] {
  const cases: MalformedRequest[] = [];
  const base = payload && typeof payload === 'object' && !Array.isArray(payload) ? (payload as Record<string, unknown>) : {};
  const body = operation.requestBody?.content?.['application/json']?.schema;
  if (body?.type === 'object') {
    cases.push({ what: 'a body that is an array', url, payload: [] });
    for (const [name, schema] of Object.entries(body.properties ?? {})) {
      const wrong = wrongBodyValue(schema);
      if (wrong !== undefined) cases.push({ what: `body.${name} of the wrong type`, url, payload: { ...base, [name]: wrong } });
    }
    if (body.additionalProperties === false) {
      cases.push({ what: 'an unknown body field', url, payload: { ...base, unexpectedField: 'x' } });
    }
  }
  for (const parameter of operation.parameters ?? []) {
    const wrong = parameter.schema ? wrongTextValue(parameter.schema, parameter.in === 'path') : undefined;
    if (wrong === undefined) continue;
    if (parameter.in === 'query') {
      cases.push({ what: `query ${parameter.name}=${wrong.slice(0, 20)}`, url: withQuery(url, parameter.name, wrong), payload });
    } else if (parameter.in === 'path') {
      const changed = withPathParam(url, template, parameter.name, wrong);
      if (changed) cases.push({ what: `path ${parameter.name}=${wrong.slice(0, 20)}`, url: changed, payload });
    }
  }
  return cases;
}
