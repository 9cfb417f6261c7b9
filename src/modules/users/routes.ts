import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Access } from '../../platform/http/access.js';
import { contextOf } from '../../platform/http/context.js';
import { errorResponses, IdParam } from '../../platform/http/schemas.js';
import { subjectFor } from './acting-for.js';
import {
  CreateUserBody,
  ListUsersQuery,
  UpdateUserBody,
  User,
  UserIdParam,
  UserList,
  UserProfile,
  WalletAddresses,
} from './schemas.js';
import type { UsersService } from './service.js';

export function usersRoutes(app: FastifyInstance, deps: { users: UsersService }): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { users } = deps;
  const tags = ['Users'];

  r.get(
    '/users/me',
    {
      config: { auth: Access.user },
      schema: { tags, summary: 'The calling user', response: { 200: UserProfile, ...errorResponses(403, 404) } },
    },
    async (request) => users.getProfile(request.tenant.id, contextOf(request, Access.user).userId),
  );

  r.patch(
    '/users/me',
    {
      config: { auth: Access.user },
      schema: {
        tags,
        summary: "Edit the calling user's profile",
        body: UpdateUserBody,
        response: { 200: User, ...errorResponses(403, 404, 409) },
      },
    },
    async (request) => users.updateUser(request.tenant.id, contextOf(request, Access.user).userId, request.body),
  );

  r.post(
    '/users',
    {
      config: { auth: Access.apiKey },
      schema: {
        tags,
        summary: 'Create a user (no password)',
        body: CreateUserBody,
        response: { 201: User, ...errorResponses(403, 409) },
      },
    },
    async (request, reply) => {
      const row = await users.createUser(request.tenant.id, request.body);
      return reply.status(201).send(await users.getUser(request.tenant.id, row.id));
    },
  );

  r.get(
    '/users',
    {
      config: { auth: Access.apiKeyOrAdmin },
      schema: {
        tags,
        summary: 'List users (paged; exact-match filters)',
        querystring: ListUsersQuery,
        response: { 200: UserList, ...errorResponses(403) },
      },
    },
    async (request) => {
      const { limit, offset, afterId, ...filters } = request.query;
      return users.listUsers(request.tenant.id, filters, { limit, offset, afterId });
    },
  );

  r.get(
    '/users/wallet-addresses/:userId',
    {
      config: { auth: Access.apiKeyOrUser },
      schema: {
        tags,
        summary: "A user's wallet addresses (API key, the user, or an admin)",
        params: UserIdParam,
        response: { 200: WalletAddresses, ...errorResponses(403, 404) },
      },
    },
    async (request) => {
      // A plain user sees only their own; another user's id is "not found", never a hint it exists.
      return users.walletAddresses(request.tenant.id, subjectFor(contextOf(request, Access.apiKeyOrUser), request.params.userId));
    },
  );

  r.get(
    '/users/:id',
    {
      config: { auth: Access.apiKeyOrAdmin },
      schema: {
        tags,
        summary: 'Full profile of a user',
        params: IdParam,
        response: { 200: UserProfile, ...errorResponses(403, 404) },
      },
    },
    async (request) => users.getProfile(request.tenant.id, request.params.id),
  );

  r.patch(
    '/users/:id',
    {
      config: { auth: Access.apiKey },
      schema: {
        tags,
        summary: "Edit a user's profile",
        params: IdParam,
        body: UpdateUserBody,
        response: { 200: User, ...errorResponses(403, 404, 409) },
      },
    },
    async (request) => users.updateUser(request.tenant.id, request.params.id, request.body),
  );
}
