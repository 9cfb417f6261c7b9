import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { Access } from '../../platform/http/access.js';
import { EmptyBody, errorResponses } from '../../platform/http/schemas.js';
import { contextOf } from '../../platform/http/context.js';
import type { MembersService } from './members.js';
import {
  AddMemberBody,
  CreateEntityBody,
  Entity,
  EntityList,
  EntityMember,
  EntityMemberList,
  EntityParams,
  GrantBody,
  ListEntitiesQuery,
  MemberParams,
  MetadataBody,
  RevokeParams,
} from './schemas.js';
import type { EntitiesService } from './service.js';

const tags = ['Entities'];
const Removed = Type.Object({ entityId: Type.String({ format: 'uuid' }), userId: Type.String({ format: 'uuid' }), removed: Type.Literal(true) });

/** Entities and their members. What each route needs is in docs/decisions.md ("Entities"). */
export function entitiesRoutes(app: FastifyInstance, deps: { entities: EntitiesService; members: MembersService }): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { entities, members } = deps;

  r.post(
    '/entities',
    {
      config: { auth: Access.apiKeyOrUser },
      schema: {
        tags,
        summary: 'Create an entity; the user (or the userId an API key or admin names) becomes its owner with every permission',
        body: CreateEntityBody,
        response: { 201: Entity, ...errorResponses(403, 404, 409) },
      },
    },
    async (request, reply) => reply.status(201).send(await entities.create(contextOf(request, Access.apiKeyOrUser), request.body)),
  );

  r.get(
    '/entities',
    {
      config: { auth: Access.apiKeyOrUser },
      schema: { tags, summary: "The caller's entities (API key or admin: all, or a user's with ?userId=)", querystring: ListEntitiesQuery, response: { 200: EntityList, ...errorResponses(403, 404) } },
    },
    async (request) => {
      const { userId, limit, offset } = request.query;
      return entities.list(contextOf(request, Access.apiKeyOrUser), { userId }, { limit, offset });
    },
  );

  r.get(
    '/entities/:id',
    { config: { auth: Access.apiKeyOrUser }, schema: { tags, summary: 'An entity (needs view)', params: EntityParams, response: { 200: Entity, ...errorResponses(403, 404) } } },
    async (request) => entities.get(contextOf(request, Access.apiKeyOrUser), request.params.id),
  );

  r.put(
    '/entities/:id/metadata',
    {
      config: { auth: Access.apiKeyOrUser },
      schema: { tags, summary: 'Replace the metadata (needs manage_entity)', params: EntityParams, body: MetadataBody, response: { 200: Entity, ...errorResponses(403, 404) } },
    },
    async (request) => entities.replaceMetadata(contextOf(request, Access.apiKeyOrUser), request.params.id, request.body.metadata),
  );

  r.get(
    '/entities/:id/users',
    { config: { auth: Access.apiKeyOrUser }, schema: { tags, summary: 'Members and their permissions (needs view)', params: EntityParams, response: { 200: EntityMemberList, ...errorResponses(403, 404) } } },
    async (request) => members.list(contextOf(request, Access.apiKeyOrUser), request.params.id),
  );

  r.post(
    '/entities/:id/users',
    {
      config: { auth: Access.apiKeyOrUser },
      schema: {
        tags,
        summary: 'Add a user (needs manage_users; granting owner needs owner); default permissions ["view"]',
        params: EntityParams,
        body: AddMemberBody,
        response: { 201: EntityMember, ...errorResponses(403, 404, 409) },
      },
    },
    async (request, reply) => reply.status(201).send(await members.add(contextOf(request, Access.apiKeyOrUser), request.params.id, request.body)),
  );

  r.delete(
    '/entities/:id/users/:targetUserId',
    {
      config: { auth: Access.apiKeyOrUser },
      schema: {
        tags,
        summary: 'Remove a member (needs manage_users, owner to remove an owner; anyone may leave); the last owner stays (409)',
        params: MemberParams,
        body: EmptyBody,
        response: { 200: Removed, ...errorResponses(403, 404, 409) },
      },
    },
    async (request) => members.remove(contextOf(request, Access.apiKeyOrUser), request.params.id, request.params.targetUserId),
  );

  r.post(
    '/entities/:id/users/:targetUserId/permissions',
    {
      config: { auth: Access.apiKeyOrUser },
      schema: {
        tags,
        summary: 'Grant one permission (needs manage_users; owner needs owner); idempotent',
        params: MemberParams,
        body: GrantBody,
        response: { 201: EntityMember, ...errorResponses(403, 404) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await members.grant(contextOf(request, Access.apiKeyOrUser), request.params.id, request.params.targetUserId, request.body.permission)),
  );

  r.delete(
    '/entities/:entityId/users/:targetUserId/permissions/:permission',
    {
      config: { auth: Access.apiKeyOrUser },
      schema: {
        tags,
        summary: 'Revoke one permission (needs manage_users; owner needs owner); idempotent; the last owner keeps owner (409)',
        params: RevokeParams,
        body: EmptyBody,
        response: { 200: EntityMember, ...errorResponses(403, 404, 409) },
      },
    },
    async (request) => {
      const { entityId, targetUserId, permission } = request.params;
      return members.revoke(contextOf(request, Access.apiKeyOrUser), entityId, targetUserId, permission);
    },
  );
}
