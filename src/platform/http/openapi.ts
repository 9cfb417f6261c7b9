/**
 * The OpenAPI document: @fastify/swagger builds it from the routes' schemas, and this file
 * makes it a client-grade contract (0 problems under Redocly's `recommended` ruleset, checked
 * by `npm run api:lint` in CI; docs/decisions.md, "OpenAPI as a product").
 *
 * `openApiTransform` runs per route and carries what only the route's config knows (access,
 * idempotency, rate limit, an explicit operationId) into the operation as `x-bastion-route`;
 * `openApiFixups` runs once on the built document:
 * - a parameter with a default is optional (Ajv fills the default in; `limit` and `offset`);
 * - a request body is required only when its schema requires a field: the service takes a
 *   missing body as an empty object (input.ts);
 * - every operation gets a stable `operationId` (config.operationId, or method + path in camel
 *   case: `GET /users/{id}` is `getUsersById`) and a description saying who may call it;
 * - the schemas named in openapi-components.ts move to `components.schemas`, every identical
 *   copy becomes a `$ref`;
 * - the error answers are shared `components.responses` (one per status), whose body is the
 *   `ErrorBody` schema with `code` an enum of the catalogue's codes of that status
 *   (error-catalogue.ts); the whole catalogue is also listed at the top (`x-error-codes`);
 * - the headers: `x-request-id` and the rate-limit headers on every answer, `Retry-After` on
 *   429 and 503, `Idempotency-Key` on the idempotent routes with `Idempotent-Replayed` on their
 *   answers;
 * - an example on every request body and main answer (curated in openapi-components.ts, or
 *   generated from the schema by openapi-sampler.ts);
 * - the events sent to event endpoints in `webhooks`, one payload schema per type (payloads.ts);
 * - the audit event types (src/platform/audit/types.ts) with their meaning (`x-audit-types`);
 * - an answer of bytes (a document's content) is `application/octet-stream`, not JSON.
 */
import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import type { TSchema } from 'typebox';
import { EVENT_TYPES, TEST_EVENT_TYPE } from '../events/outbox.js';
import { EVENT_PAYLOADS, TEST_EVENT_PAYLOAD } from '../events/payloads.js';
import { REPLAYED_HEADER } from '../idempotency/http.js';
import type { RouteRateLimit } from '../ratelimit/route.js';
import { AUDIT_TYPES } from '../audit/types.js';
import { ERROR_CATALOGUE } from './error-catalogue.js';
import type { AuthRequirement } from './guards.js';
import { CURATED_EXAMPLES, NAMED_SCHEMAS, TAGS } from './openapi-components.js';
import { sampleSchema } from './openapi-sampler.js';
import { httpStatusText } from './errors.js';
import { ErrorResponse } from './schemas.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The operation's OpenAPI operationId, when the derived one (method + path) is not wanted. */
    operationId?: string;
  }
}

type Json = Record<string, unknown>;
type Operation = Json & { parameters?: Json[]; responses?: Record<string, Json>; requestBody?: Json };

export const API_VERSION = '0.1.0';

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

/** The options @fastify/swagger is registered with (app.ts). */
export function swaggerOptions(publicBaseUrl: string): FastifyDynamicSwaggerOptions {
  return {
    transform: openApiTransform,
    transformObject: openApiFixups,
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Bastion',
        version: API_VERSION,
        description:
          'Multi-tenant identity, compliance and wallet service. Every tenant-scoped route requires the `x-tenant-id` header. ' +
          'Errors have one shape (`Error`) with a stable `code` from the catalogue (`x-error-codes`). ' +
          'Every answer carries `x-request-id`; 429 and 503 carry `Retry-After`. ' +
          'The events sent to a tenant’s event endpoints are listed under `webhooks`. ' +
          'A typed TypeScript client is generated from this document: `@bastion/client` (clients/typescript).',
        license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
        contact: { name: 'Bastion API', url: `${publicBaseUrl}/docs` },
      },
      // Relative: the deployment that serves this document (its PUBLIC_BASE_URL).
      servers: [{ url: '/', description: 'This deployment' }],
      tags: TAGS,
      components: {
        securitySchemes: {
          tenant: { type: 'apiKey', in: 'header', name: 'x-tenant-id', description: 'Tenant id; required on every tenant-scoped route' },
          apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: "API key of the tenant (the tenant's back end)" },
          bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Access token (15 minutes)' },
          mailedToken: { type: 'http', scheme: 'bearer', description: 'The single-use token from a mail (never an access token)' },
          eventSignature: {
            type: 'apiKey',
            in: 'header',
            name: 'webhook-signature',
            description:
              'Bastion’s signature on the events it sends (Standard Webhooks): `v1,<base64 HMAC-SHA256 of "webhook-id.webhook-timestamp.body">` under the endpoint’s secret, one per live secret, space-separated',
          },
          webhookSignature: {
            type: 'apiKey',
            in: 'header',
            name: 'x-hmac-signature',
            description: "Provider webhooks: HMAC-SHA256 of the raw body under the tenant's shared secret, hex (docs/providers.md)",
          },
        },
      },
    },
  };
}

interface RouteFacts {
  tenancy: boolean;
  auth?: AuthRequirement;
  bearerInHandler?: boolean;
  idempotency?: 'required' | 'optional';
  idempotencyBodyField?: string;
  rateLimit?: { max: number; windowMs: number; per: 'tenant-ip' | 'ip' };
  operationId?: string;
}

const ROUTE_FACTS = 'x-bastion-route';

/**
 * Per route, before the operation is built: what the route's config says (who may call it, its
 * idempotency and rate limit, an explicit operationId), carried as `x-bastion-route` for the fixups.
 * The route's own schema is never changed (a copy is returned).
 */
export function openApiTransform({ schema, url, route }: { schema: unknown; url: string; route: { config?: unknown } }): { schema: Json; url: string } {
  const config = (route.config ?? {}) as {
    tenancy?: boolean;
    auth?: AuthRequirement;
    bearerInHandler?: boolean;
    idempotency?: 'required' | 'optional';
    idempotencyBodyField?: string;
    rateLimit?: RouteRateLimit;
    operationId?: string;
  };
  const rule = config.rateLimit;
  const facts: RouteFacts = {
    tenancy: config.tenancy !== false,
    auth: config.auth,
    bearerInHandler: config.bearerInHandler,
    idempotency: config.idempotency,
    idempotencyBodyField: config.idempotencyBodyField,
    rateLimit: rule ? { max: typeof rule.max === 'function' ? rule.max() : rule.max, windowMs: rule.windowMs, per: rule.per ?? 'tenant-ip' } : undefined,
    operationId: config.operationId,
  };
  return { schema: { ...((schema ?? {}) as Json), [ROUTE_FACTS]: facts }, url };
}

/** `GET /users/{id}/wallet-addresses` -> `getUsersByIdWalletAddresses`. */
export function derivedOperationId(method: string, path: string): string {
  const words = path
    .split('/')
    .filter(Boolean)
    .flatMap((segment) => (segment.startsWith('{') ? ['by', segment.slice(1, -1)] : [segment]))
    .flatMap((segment) => segment.split(/[^A-Za-z0-9]+/))
    .filter(Boolean);
  return [method.toLowerCase(), ...words.map((w) => w[0]!.toUpperCase() + w.slice(1))].join('');
}

function accessText(facts: RouteFacts): string {
  if (facts.bearerInHandler) return 'The single-use token from the mail as the bearer (never an access token), with `x-tenant-id`.';
  if (!facts.tenancy) return 'No tenant header: the request names its tenant itself (path, state or signature).';
  const auth = facts.auth;
  if (auth === undefined || auth === 'public') return 'Public within the tenant: only `x-tenant-id`.';
  const who: string[] = [];
  if (auth.apiKey) who.push('an API key of the tenant (`x-api-key`)');
  if (auth.bearer === 'user') who.push('a user’s access token (any role)');
  if (auth.bearer === 'admin') who.push('an admin’s access token');
  return `Who may call: ${who.join(', or ')}; with \`x-tenant-id\`.`;
}

function windowText(ms: number): string {
  if (ms % 3_600_000 === 0) return ms === 3_600_000 ? 'hour' : `${ms / 3_600_000} hours`;
  if (ms % 60_000 === 0) return ms === 60_000 ? 'minute' : `${ms / 60_000} minutes`;
  return `${ms / 1000} seconds`;
}

function routeDescription(own: unknown, facts: RouteFacts): string {
  const parts = typeof own === 'string' && own.length > 0 ? [own] : [];
  parts.push(accessText(facts));
  if (facts.idempotency) {
    const where = facts.idempotencyBodyField ? `the \`Idempotency-Key\` header or the \`${facts.idempotencyBodyField}\` field` : 'the `Idempotency-Key` header';
    parts.push(
      facts.idempotency === 'required'
        ? `Idempotent: a key in ${where} is required; a retry with the same key replays the first answer (\`Idempotent-Replayed: true\`), the same key with another request is 409.`
        : `Idempotent when a key is sent in ${where}: a retry replays the first answer (\`Idempotent-Replayed: true\`), the same key with another request is 409.`,
    );
  }
  if (facts.rateLimit) {
    const per = facts.rateLimit.per === 'ip' ? 'client address' : 'client address within the tenant';
    parts.push(`Rate limit: ${facts.rateLimit.max} requests a ${windowText(facts.rateLimit.windowMs)} per ${per}; over it, 429 with \`Retry-After\`.`);
  }
  return parts.join('\n\n');
}

const STATUS_TEXT: Record<string, string> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  204: 'No content',
  303: 'See other',
};

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Bad request: validation failed (message names every bad field), or a rule of the operation refused the input',
  401: 'Missing or unknown x-tenant-id, or missing, invalid or expired credential',
  403: 'Valid credential with insufficient role or permissions',
  404: 'Not found, or belongs to another tenant or user',
  408: 'The request was not received in time',
  409: 'Conflict with the current state',
  413: 'Request body too large',
  414: 'A path segment of the URL is too long',
  415: 'The body is not of a content type the operation takes',
  429: 'Too many requests; retry after the Retry-After header',
  431: 'The request line and headers are too large',
  500: 'Internal server error',
  502: 'A provider refused or failed the request',
  503: 'Temporarily unavailable (overload, shutdown, a provider or chain down); retry after the Retry-After header',
};

/** The code each shared error answer shows in its example (the commonest of its status). */
const EXAMPLE_CODES = new Set(['VALIDATION_FAILED', 'TOKEN_INVALID', 'FORBIDDEN', 'USER_NOT_FOUND', 'REQUEST_TIMEOUT', 'IDEMPOTENCY_KEY_REUSED', 'BODY_TOO_LARGE', 'URL_TOO_LONG', 'UNSUPPORTED_MEDIA_TYPE', 'RATE_LIMITED', 'HEADERS_TOO_LARGE', 'INTERNAL', 'PROVIDER_REFUSED', 'BUSY']);

function errorResponseName(status: string): string {
  return `Error${status}`;
}

const HEADERS = {
  RequestId: { description: 'The request id (also in the service’s logs); quote it when reporting a problem', schema: { type: 'string' }, example: 'req-7f3a9c' },
  RateLimitLimit: { description: 'Requests allowed per client address in the global window', schema: { type: 'string' }, example: '600' },
  RateLimitRemaining: { description: 'Requests left in the global window for this client address', schema: { type: 'string' }, example: '599' },
  RetryAfter: { description: 'Seconds to wait before retrying', schema: { type: 'string' }, example: '30' },
  IdempotentReplayed: { description: '`true` when the answer is the stored first answer of an earlier request with the same idempotency key', schema: { type: 'string', enum: ['true'] } },
} as const;

const IDEMPOTENCY_KEY = { name: 'idempotency-key', in: 'header', schema: { type: 'string', minLength: 1, maxLength: 255 }, example: '4c1f2a8e-transfer-001' };

/** The reusable parameters; only the ones operations use are put in the document. */
const PARAMETERS: Record<string, Json> = {
  IdempotencyKey: {
    ...IDEMPOTENCY_KEY,
    required: false,
    description: 'Makes a retry safe: the same key replays the first answer; the same key with another request is 409 IDEMPOTENCY_KEY_REUSED',
  },
  IdempotencyKeyRequired: {
    ...IDEMPOTENCY_KEY,
    required: true,
    description: 'Required: a retry with the same key never acts twice and replays the first answer; the same key with another request is 409 IDEMPOTENCY_KEY_REUSED',
  },
  WebhookId: { name: 'webhook-id', in: 'header', required: true, description: 'The event id: the same on every attempt and replay (deduplicate on it)', schema: { type: 'string', format: 'uuid' } },
  WebhookTimestamp: {
    name: 'webhook-timestamp',
    in: 'header',
    required: true,
    description: 'Send time, in seconds since the epoch (refuse old ones)',
    schema: { type: 'string', pattern: '^[0-9]+$' },
    example: '1768469400',
  },
};

function parameterRef(name: string, used: Set<string>): Json {
  used.add(name);
  return { $ref: `#/components/parameters/${name}` };
}

function headerRef(name: keyof typeof HEADERS): Json {
  return { $ref: `#/components/headers/${name}` };
}

function commonHeaders(): Record<string, Json> {
  return { 'x-request-id': headerRef('RequestId'), 'x-ratelimit-limit': headerRef('RateLimitLimit'), 'x-ratelimit-remaining': headerRef('RateLimitRemaining') };
}

/** The JSON of a TypeBox schema, as the document holds it. */
function plain(schema: TSchema): Json {
  return JSON.parse(JSON.stringify(schema)) as Json;
}

function resolvePointer(root: unknown, pointer: string): unknown {
  let node = root;
  for (const raw of pointer.split('/').filter(Boolean)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    node = node && typeof node === 'object' ? (node as Json)[key] : undefined;
  }
  return node;
}

/** The schema a NAMED_SCHEMAS source points at. */
function sourceSchema(paths: Record<string, Record<string, Operation>>, source: string): Json {
  const [method, path, where, pointer = ''] = source.split(' ');
  const operation = paths[path!]?.[method!.toLowerCase()];
  const media = where === 'body' ? operation?.requestBody?.content : operation?.responses?.[where!]?.content;
  const schema = resolvePointer((media as Record<string, Json> | undefined)?.['application/json']?.schema, pointer.replace(/^#/, ''));
  if (!schema || typeof schema !== 'object') throw new Error(`OpenAPI component source "${source}" names no schema`);
  return schema as Json;
}

/** Replaces every schema identical to a named one by a `$ref`, largest first (top-down). */
function liftNamedSchemas(doc: Json, paths: Record<string, Record<string, Operation>>): Record<string, Json> {
  const named = new Map<string, string>();
  const components: Record<string, Json> = {};
  for (const [name, source] of Object.entries(NAMED_SCHEMAS)) {
    const schema = structuredClone(sourceSchema(paths, source));
    const key = JSON.stringify(schema);
    if (named.has(key)) throw new Error(`OpenAPI components ${named.get(key)} and ${name} are the same schema`);
    named.set(key, name);
    components[name] = schema;
  }
  const replace = (node: unknown, self?: string): unknown => {
    if (!node || typeof node !== 'object') return node;
    if (Array.isArray(node)) return node.map((item) => replace(item));
    const name = named.get(JSON.stringify(node));
    if (name && name !== self) return { $ref: `#/components/schemas/${name}` };
    for (const [key, value] of Object.entries(node)) {
      // Examples are values, not schemas.
      if (key === 'example' || key === 'examples') continue;
      (node as Json)[key] = replace(value);
    }
    return node;
  };
  for (const [name, schema] of Object.entries(components)) replace(schema, name);
  replace(doc.paths);
  return components;
}

/** The webhooks section: one POST per event type, its body `{type, timestamp, data}` (src/modules/events/signing.ts). */
function webhooks(schemas: Record<string, Json>, usedParameters: Set<string>): Json {
  const out: Json = {};
  const delivered: Array<[string, TSchema]> = [...EVENT_TYPES.map((type) => [type, EVENT_PAYLOADS[type] as TSchema] as [string, TSchema]), [TEST_EVENT_TYPE, TEST_EVENT_PAYLOAD]];
  for (const [type, payload] of delivered) {
    const name = `${type.split(/[^A-Za-z0-9]+/).map((w) => w[0]!.toUpperCase() + w.slice(1)).join('')}EventData`;
    schemas[name] = { ...plain(payload), description: `The data of a ${type} event` };
    const body = {
      type: 'object',
      required: ['type', 'timestamp', 'data'],
      additionalProperties: false,
      properties: {
        type: { type: 'string', const: type },
        timestamp: { type: 'string', format: 'date-time', description: 'When the event happened' },
        data: { $ref: `#/components/schemas/${name}` },
      },
    };
    out[type] = {
      post: {
        operationId: derivedOperationId('event', type),
        tags: ['Events'],
        summary: `${type} event`,
        description:
          type === TEST_EVENT_TYPE
            ? 'Sent on request (POST /event-endpoints/{id}/test) to that one endpoint only, signed like every event; tried once (retry it by id). ' +
              'No type filter names it and GET /events never lists it.'
            : 'Sent to every enabled event endpoint of the tenant whose types include it (POST, Standard Webhooks signing). ' +
              'Any 2xx answer acknowledges it; otherwise the delivery is retried with backoff, under the same webhook-id.',
        security: [{ eventSignature: [] }],
        parameters: [parameterRef('WebhookId', usedParameters), parameterRef('WebhookTimestamp', usedParameters)],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: body, example: { type, timestamp: '2026-01-15T09:30:00.000Z', data: sampleSchema(schemas[name], schemas) } } },
        },
        responses: {
          '2XX': { description: 'Received' },
          '4XX': { description: 'Refused: the delivery is retried (and the endpoint disabled after failing for days)' },
        },
      },
    };
  }
  return out;
}

function withExample(media: Json | undefined, example: unknown, schemas: Record<string, Json>): void {
  if (!media || !media.schema || 'example' in media || 'examples' in media) return;
  media.example = example !== undefined ? example : sampleSchema(media.schema, schemas);
}

/**
 * An answer whose schema is bytes (`type: string, format: binary`: a document's content) is
 * sent with the file's own media type, not as JSON: declared as `application/octet-stream`
 * (any media type's bytes), so a generated client reads it as a blob, not as JSON.
 */
function binaryAnswer(response: Json): void {
  const content = response.content as Record<string, Json> | undefined;
  const json = content?.['application/json'];
  const schema = json?.schema as Json | undefined;
  if (!content || !schema || schema.type !== 'string' || schema.format !== 'binary') return;
  delete content['application/json'];
  content['application/octet-stream'] = { schema };
}

export function openApiFixups(document: { openapiObject: object } | { swaggerObject: object }): Json {
  const doc = ('openapiObject' in document ? document.openapiObject : document.swaggerObject) as Json;
  const paths = (doc.paths ?? {}) as Record<string, Record<string, Operation>>;
  const usedIds = new Map<string, string>();
  const errorStatuses = new Set<string>();
  const usedParameters = new Set<string>();

  for (const [path, operations] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const where = `${method.toUpperCase()} ${path}`;
      const facts = (operation[ROUTE_FACTS] ?? { tenancy: true }) as RouteFacts;
      delete operation[ROUTE_FACTS];

      const operationId = facts.operationId ?? derivedOperationId(method, path);
      if (usedIds.has(operationId)) throw new Error(`operationId ${operationId} of ${where} is also ${usedIds.get(operationId)}'s`);
      usedIds.set(operationId, where);
      operation.operationId = operationId;
      operation.description = routeDescription(operation.description, facts);

      for (const parameter of operation.parameters ?? []) {
        const schema = parameter.schema as Json | undefined;
        if (parameter.in !== 'path' && schema && 'default' in schema) parameter.required = false;
      }
      if (facts.idempotency) {
        const required = facts.idempotency === 'required' && !facts.idempotencyBodyField;
        operation.parameters = [
          ...(operation.parameters ?? []).filter((p) => String(p.name).toLowerCase() !== 'idempotency-key'),
          parameterRef(required ? 'IdempotencyKeyRequired' : 'IdempotencyKey', usedParameters),
        ];
      }

      const curated = CURATED_EXAMPLES[where];
      const body = operation.requestBody as { required?: boolean; content?: Record<string, Json> } | undefined;
      if (body) {
        body.required = Object.values(body.content ?? {}).some((media) => requiresField(media.schema as Json | undefined));
        for (const [type, media] of Object.entries(body.content ?? {})) withExample(media, type === 'application/json' ? curated?.request : undefined, {});
      }

      const responses = (operation.responses ?? {}) as Record<string, Json>;
      const main = Object.keys(responses).find((status) => /^2/.test(status));
      for (const [status, response] of Object.entries(responses)) {
        if (Number(status) >= 400) {
          errorStatuses.add(status);
          responses[status] = { $ref: `#/components/responses/${errorResponseName(status)}` };
          continue;
        }
        if (response.description === 'Default Response' || !response.description) response.description = STATUS_TEXT[status] ?? 'Success';
        const headers: Record<string, Json> = { ...commonHeaders(), ...((response.headers as Record<string, Json> | undefined) ?? {}) };
        if (facts.idempotency && /^2/.test(status)) headers[REPLAYED_HEADER] = headerRef('IdempotentReplayed');
        response.headers = headers;
        binaryAnswer(response);
        if (status === main) {
          for (const [type, media] of Object.entries((response.content ?? {}) as Record<string, Json>)) {
            if (type === 'application/json' || type.startsWith('text/')) withExample(media, type === 'application/json' ? curated?.response : undefined, {});
          }
        }
      }
    }
  }

  // The named schemas are lifted after the examples were generated from the inline schemas.
  const schemas: Record<string, Json> = { ...((doc.components as Json | undefined)?.schemas as Record<string, Json> | undefined) };
  Object.assign(schemas, liftNamedSchemas(doc, paths));

  const error = plain(ErrorResponse);
  error.required = ['statusCode', 'error', 'message', 'code'];
  schemas.ErrorBody = error;
  const errorResponses: Record<string, Json> = {};
  for (const status of [...errorStatuses].sort()) {
    const codes = errorCodesOfStatus(Number(status));
    const code = codes.find((c) => EXAMPLE_CODES.has(c)) ?? codes[0] ?? 'INTERNAL';
    const headers: Record<string, Json> = commonHeaders();
    if (status === '429' || status === '503') headers['retry-after'] = headerRef('RetryAfter');
    errorResponses[errorResponseName(status)] = {
      description: ERROR_DESCRIPTIONS[Number(status)] ?? 'Error',
      headers,
      'x-error-codes': codes,
      content: {
        'application/json': {
          schema: {
            allOf: [{ $ref: '#/components/schemas/ErrorBody' }, { type: 'object', properties: { statusCode: { const: Number(status) }, code: { type: 'string', enum: codes } } }],
          },
          example: { statusCode: Number(status), error: httpStatusText(Number(status)), message: ERROR_CATALOGUE[code as keyof typeof ERROR_CATALOGUE]?.meaning ?? 'Error', code },
        },
      },
    };
  }

  const hooks = webhooks(schemas, usedParameters);
  doc.webhooks = hooks;
  const components = (doc.components ?? {}) as Json;
  components.schemas = Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b)));
  components.responses = errorResponses;
  components.headers = HEADERS;
  components.parameters = Object.fromEntries([...usedParameters].sort().map((name) => [name, PARAMETERS[name]]));
  doc.components = components;
  doc['x-error-codes'] = HTTP_CODES.map(([code, { status, meaning }]) => ({ code, status, meaning }));
  // The audit event types GET /audit-events answers (src/platform/audit/types.ts), with their meaning.
  doc['x-audit-types'] = Object.entries(AUDIT_TYPES).map(([type, meaning]) => ({ type, meaning }));
  return doc;
}
