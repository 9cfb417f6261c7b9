import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { Access } from '../../../platform/http/access.js';
import { errorResponses } from '../../../platform/http/schemas.js';
import { sessionMeta } from '../routes.js';
import type { IdpConfigService } from './config.js';
import type { IdpLoginService } from './service.js';
import { STATE_PATTERN } from './service.js';

const StartQuery = Type.Object(
  { redirectUrl: Type.String({ minLength: 1, maxLength: 2048, description: "Client URL to return to; must be on the tenant's allow-list" }) },
  { additionalProperties: false },
);

const StartResponse = Type.Object({
  authorizationUrl: Type.String({ description: "The provider's authorization URL: send the user's browser there" }),
  expiresAt: Type.String({ format: 'date-time', description: 'The login must complete before this time (10 minutes)' }),
});

// Providers add parameters of their own (iss, session_state, scope...): extra ones are allowed.
const CallbackQuery = Type.Object(
  {
    state: Type.String({ pattern: STATE_PATTERN, description: 'The base64url state issued by GET /auth/idp' }),
    code: Type.Optional(Type.String({ maxLength: 4096 })),
    error: Type.Optional(Type.String({ maxLength: 256 })),
    error_description: Type.Optional(Type.String({ maxLength: 2048 })),
    iss: Type.Optional(Type.String({ maxLength: 2048 })),
  },
  { additionalProperties: true },
);

const ConfigView = Type.Object({
  issuer: Type.String(),
  clientId: Type.String(),
  clientSecret: Type.String({ description: 'Always masked' }),
  scopes: Type.String(),
  redirectAllow: Type.Array(Type.String()),
  callbackUrl: Type.String({ description: 'The redirect URI to register at the provider' }),
  updatedAt: Type.String({ format: 'date-time' }),
});

const PER_IP_LIMIT = 30;
const PER_IP_WINDOW_MS = 60_000;

export function idpRoutes(app: FastifyInstance, deps: { login: IdpLoginService; config: IdpConfigService }): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { login, config } = deps;
  const tags = ['Authentication'];

  r.get(
    '/auth/idp',
    {
      config: { auth: Access.public, rateLimit: { name: 'idp-start', max: PER_IP_LIMIT, windowMs: PER_IP_WINDOW_MS } },
      schema: {
        tags,
        summary: "Start a login at the tenant's external OpenID provider",
        description: 'Answers the authorization URL (PKCE S256, nonce, single-use state valid 10 minutes). redirectUrl must match the allow-list.',
        querystring: StartQuery,
        response: { 200: StartResponse, ...errorResponses(429, 502, 503) },
      },
    },
    async (request) => {
      return login.start(request.tenant, request.query.redirectUrl);
    },
  );

  r.get(
    '/auth/idp/callback',
    {
      // The provider sends the browser here: no header can be added, the state names the tenant.
      config: { tenancy: false, rateLimit: { name: 'idp-callback', max: PER_IP_LIMIT, windowMs: PER_IP_WINDOW_MS, per: 'ip' } },
      schema: {
        tags,
        security: [],
        summary: 'Where the provider returns the browser; redirects to the client URL',
        description:
          'Redirects (303) to the redirectUrl given to GET /auth/idp with the token pair in the URL fragment ' +
          '(accessToken, refreshToken, tokenType, expiresIn, accessTokenExpiresAt, refreshTokenExpiresAt), or ' +
          'twoFactorRequired and challengeToken, or error and error_description. An unknown, altered, expired or used state is a 400; ' +
          'a tenant whose provider was removed meanwhile is 503 PROVIDER_NOT_CONFIGURED.',
        querystring: CallbackQuery,
        response: { 303: Type.Null({ description: 'Redirect to the client URL; the outcome is in the fragment' }), ...errorResponses(429, 503) },
      },
    },
    async (request, reply) => {
      const header = request.headers['x-tenant-id'];
      const queryStart = request.url.indexOf('?');
      const result = await login.callback({
        state: request.query.state,
        rawQuery: queryStart < 0 ? '' : request.url.slice(queryStart),
        tenantHeader: typeof header === 'string' ? header : undefined,
        meta: sessionMeta(request),
      });
      return reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer').redirect(result.location, 303);
    },
  );

  r.get(
    '/auth/idp/config',
    {
      config: { auth: Access.apiKeyOrAdmin },
      schema: {
        tags,
        summary: "The tenant's external identity provider settings (secret masked)",
        description: 'A tenant without one is 503 PROVIDER_NOT_CONFIGURED (as every provider kind).',
        response: { 200: ConfigView, ...errorResponses(403, 503) },
      },
    },
    async (request) => config.view(request.tenant.id),
  );
}
