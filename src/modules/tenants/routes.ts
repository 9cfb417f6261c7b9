import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Access } from '../../platform/http/access.js';
import { contextOf } from '../../platform/http/context.js';
import { KEY_SCOPES } from '../../platform/http/key-scopes.js';
import { EmptyBody, errorResponses } from '../../platform/http/schemas.js';
import type { ApiKeysService } from './api-keys.js';
import { MAX_ROTATION_OVERLAP_SEC } from './service.js';

const Scope = Type.Union(
  KEY_SCOPES.map((s) => Type.Literal(s)),
  { description: 'all: every route; read-only: GET only; users, kyc, wallets, documents: the routes of that area (by OpenAPI tag)' },
);

const ApiKey = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.Union([Type.String(), Type.Null()]),
  prefix: Type.String({ description: 'The start of the key (bst_ and 8 hex digits of its id)' }),
  scopes: Type.Array(Type.String(), { description: 'The scopes; `all` for a key without limits' }),
  createdAt: Type.String({ format: 'date-time' }),
  lastUsedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description: 'Updated at most once a minute' }),
  expiresAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  rotatedFrom: Type.Union([Type.String({ format: 'uuid' }), Type.Null()], { description: 'The key this one replaced' }),
});

const CreatedApiKey = Type.Object({ ...ApiKey.properties, apiKey: Type.String({ description: 'The secret key: shown only in this answer' }) });
const RotatedApiKey = Type.Object({ ...CreatedApiKey.properties, previousKeyExpiresAt: Type.String({ format: 'date-time', description: 'When the old key is refused' }) });

const CreateApiKeyBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 100, pattern: '^[^\\u0000-\\u001f]*$' })),
    scopes: Type.Optional(Type.Array(Scope, { minItems: 1, maxItems: 6, description: 'Default: all' })),
    expiresAt: Type.Optional(Type.String({ format: 'date-time', description: 'Default: never' })),
  },
  { additionalProperties: false },
);

const RotateApiKeyBody = Type.Object(
  {
    overlapSeconds: Type.Optional(
      Type.Integer({ minimum: 0, maximum: MAX_ROTATION_OVERLAP_SEC, description: 'How long the old key stays valid (default 3600; 0: refused at once)' }),
    ),
    expiresAt: Type.Optional(Type.String({ format: 'date-time', description: 'Expiry of the new key (default: never)' })),
  },
  { additionalProperties: false },
);

const KeyIdParam = Type.Object({ keyId: Type.String({ format: 'uuid' }) });

/** The tenant's API keys: an admin's bearer token or a key with scope `all` (the tag's area). */
export function apiKeyRoutes(app: FastifyInstance, deps: { apiKeys: ApiKeysService }): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { apiKeys } = deps;
  const tags = ['API keys'];
  const config = { auth: Access.apiKeyOrAdmin };

  r.get(
    '/api-keys',
    { config, schema: { tags, summary: "List the tenant's API keys (not revoked; never their secrets)", response: { 200: Type.Object({ data: Type.Array(ApiKey) }), ...errorResponses(403) } } },
    async (request) => ({ data: await apiKeys.list(contextOf(request, Access.apiKeyOrAdmin)) }),
  );

  r.post(
    '/api-keys',
    { config, schema: { tags, summary: 'Create an API key (its secret is shown once)', body: CreateApiKeyBody, response: { 201: CreatedApiKey, ...errorResponses(403) } } },
    async (request, reply) => {
      const { name, scopes, expiresAt } = request.body;
      const created = await apiKeys.create(contextOf(request, Access.apiKeyOrAdmin), { name, scopes, expiresAt: expiresAt ? new Date(expiresAt) : undefined });
      return reply.status(201).send(created);
    },
  );

  r.delete(
    '/api-keys/:keyId',
    { config, schema: { tags, summary: 'Revoke an API key (refused at once)', params: KeyIdParam, body: EmptyBody, response: { 204: Type.Null({ description: 'Revoked' }), ...errorResponses(403, 404) } } },
    async (request, reply) => {
      await apiKeys.revoke(contextOf(request, Access.apiKeyOrAdmin), request.params.keyId);
      return reply.status(204).send(null);
    },
  );

  r.post(
    '/api-keys/:keyId/rotate',
    {
      config,
      schema: {
        tags,
        summary: 'A new key with the same name and scopes; the old one stays valid for the overlap',
        params: KeyIdParam,
        body: RotateApiKeyBody,
        response: { 201: RotatedApiKey, ...errorResponses(403, 404) },
      },
    },
    async (request, reply) => {
      const { overlapSeconds, expiresAt } = request.body;
      const rotated = await apiKeys.rotate(contextOf(request, Access.apiKeyOrAdmin), request.params.keyId, {
        overlapSeconds: overlapSeconds ?? 3600,
        expiresAt: expiresAt ? new Date(expiresAt) : undefined,
      });
      return reply.status(201).send(rotated);
    },
  );
}
