import { Type, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Access } from '../../platform/http/access.js';
import { contextOf } from '../../platform/http/context.js';
import { EmptyBody, errorResponses, MessageResponse } from '../../platform/http/schemas.js';
import { User, UserIdParam } from '../users/module.js';
import { toUserDto } from '../users/service.js';
import type { KeyRing } from './keys.js';
import { EndedSessions, Jwks, LoginBody, LoginResponse, RefreshBody, RegisterBody, SessionList, SessionParams, SessionUserQuery, TokenPair } from './schemas.js';
import { LOGIN_IP_WINDOW_MS, type AuthService } from './service.js';
import type { SessionMeta } from './sessions.js';

export function sessionMeta(request: FastifyRequest): SessionMeta {
  const agent = request.headers['user-agent'];
  return { ip: request.ip, userAgent: typeof agent === 'string' ? agent : undefined };
}

export function authRoutes(app: FastifyInstance, deps: { auth: AuthService; loginPerIp: number }): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { auth } = deps;
  const tags = ['Authentication'];

  r.post(
    '/auth/email',
    {
      config: { auth: Access.public },
      schema: { tags, summary: 'Register with email and password', body: RegisterBody, response: { 201: User, ...errorResponses(409, 429, 503) } },
    },
    async (request, reply) => {
      // The row as written: no second read.
      return reply.status(201).send(toUserDto(await auth.register(request.tenant, request.body)));
    },
  );

  // Both login paths share one budget per client address.
  const loginLimit = { name: 'login-ip', max: deps.loginPerIp, windowMs: LOGIN_IP_WINDOW_MS, message: 'Too many login attempts; retry later' };
  for (const url of ['/auth/email/login', '/auth/login']) {
    r.post(
      url,
      {
        config: { auth: Access.public, rateLimit: loginLimit },
        schema: {
          tags,
          summary: 'Log in with email and password',
          description: 'Answers a token pair, or a second-factor challenge when 2FA is on.',
          body: LoginBody,
          response: { 201: LoginResponse, ...errorResponses(429, 503) },
        },
      },
      async (request, reply) => {
        const result = await auth.login(request.tenant.id, request.body.email, request.body.password, sessionMeta(request));
        return reply.status(201).send(result);
      },
    );
  }

  r.post(
    '/auth/refresh',
    {
      config: { auth: Access.public },
      schema: { tags, summary: 'Rotate a refresh token for a new pair', body: RefreshBody, response: { 201: TokenPair, ...errorResponses(429) } },
    },
    async (request, reply) => reply.status(201).send(await auth.refresh(request.tenant.id, request.body.refreshToken)),
  );

  r.post(
    '/auth/logout',
    {
      config: { auth: Access.user },
      schema: { tags, summary: "Revoke the caller's session (its refresh and access tokens)", body: EmptyBody, response: { 201: MessageResponse, ...errorResponses(403) } },
    },
    async (request, reply) => {
      const { caller: { sessionId }, userId } = contextOf(request, Access.user);
      await auth.logout(request.tenant.id, sessionId, userId);
      return reply.status(201).send({ message: 'Logged out' });
    },
  );

  // Sessions a user can see and end; an admin or the API key does the same for any user of the tenant.
  const sessionAccess = { auth: Access.apiKeyOrUser };
  r.get(
    '/auth/sessions',
    {
      config: sessionAccess,
      schema: {
        tags,
        summary: 'Live sessions of a user (device, address, created, last used, current)',
        description: 'A user sees its own; an admin or the API key names any user of the tenant in `userId` (an admin defaults to itself). Another user’s, as a plain user: 404.',
        querystring: SessionUserQuery,
        response: { 200: SessionList, ...errorResponses(403, 404) },
      },
    },
    async (request) => ({ data: await auth.listSessions(contextOf(request, Access.apiKeyOrUser), request.query.userId) }),
  );

  r.delete(
    '/auth/sessions/:sessionId',
    {
      config: sessionAccess,
      schema: {
        tags,
        summary: 'End one session: its refresh token is refused at once, its access tokens within 5 seconds',
        description: 'A user ends its own; an admin or the API key any of the tenant. Another user’s session, as a plain user: 404.',
        params: SessionParams,
        body: EmptyBody,
        response: { 204: Type.Null({ description: 'Ended' }), ...errorResponses(403, 404) },
      },
    },
    async (request, reply) => {
      await auth.endSession(contextOf(request, Access.apiKeyOrUser), request.params.sessionId);
      return reply.status(204).send(null);
    },
  );

  r.delete(
    '/auth/sessions',
    {
      config: sessionAccess,
      schema: {
        tags,
        summary: "End every session of a user but the caller's own (sign out everywhere)",
        description: 'A user ends its other sessions; an admin or the API key names the user in `userId` and ends all of its sessions (but the admin’s own).',
        querystring: SessionUserQuery,
        body: EmptyBody,
        response: { 200: EndedSessions, ...errorResponses(403, 404) },
      },
    },
    async (request) => ({ ended: await auth.endOtherSessions(contextOf(request, Access.apiKeyOrUser), request.query.userId) }),
  );

  r.post(
    '/auth/users/:userId/token',
    {
      config: { auth: Access.apiKey },
      schema: { tags, summary: 'Mint a token pair for a user of the tenant', params: UserIdParam, body: EmptyBody, response: { 201: TokenPair, ...errorResponses(403, 404) } },
    },
    async (request, reply) => {
      const { keyId } = contextOf(request, Access.apiKey).caller;
      return reply.status(201).send(await auth.mintForUser(request.tenant.id, request.params.userId, keyId, sessionMeta(request)));
    },
  );
}

/** The public keys that verify access tokens: outside tenancy, so sibling services verify offline. */
export function jwksRoute(app: FastifyInstance, keys: KeyRing): void {
  app.get(
    '/.well-known/jwks.json',
    {
      config: { tenancy: false },
      schema: { tags: ['Authentication'], summary: 'Public keys that verify access tokens (no tenant needed)', security: [], response: { 200: Jwks } },
    },
    async (_request, reply) => {
      void reply.header('cache-control', 'public, max-age=300');
      return keys.jwks();
    },
  );
}
