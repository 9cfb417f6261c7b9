import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { actorOf } from '../../platform/audit/actor.js';
import { Access, viewerOf } from '../../platform/http/access.js';
import { EmptyBody, errorResponses } from '../../platform/http/schemas.js';
import {
  BankLinkItem,
  BankLinkItemList,
  ItemIdParam,
  LinkTokenQuery,
  LinkTokenResponse,
  Originator,
  PublicTokenBody,
  RemovedResponse,
} from './schemas.js';
import type { BankLinkService, Owner } from './service.js';

/** The caller's side: a user's own accounts, or (API key) the tenant's own funding accounts. */
export function ownerOf(request: FastifyRequest): Owner {
  const appUrl = request.tenant.settings.appUrl;
  return {
    tenantId: request.tenant.id,
    tenantName: request.tenant.name,
    userId: viewerOf(request).userId ?? null,
    appUrl: typeof appUrl === 'string' ? appUrl : undefined,
  };
}

export function bankLinkRoutes(app: FastifyInstance, deps: { service: BankLinkService }): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { service } = deps;
  const tags = ['Bank-account linking'];

  r.get(
    '/bank-link/link-token',
    {
      config: { auth: Access.apiKeyOrUser },
      schema: {
        tags,
        summary: "A link token and the hosted Link page for the caller (the redirect must be in the tenant's allow-list)",
        querystring: LinkTokenQuery,
        response: { 200: LinkTokenResponse, ...errorResponses(403, 502) },
      },
    },
    async (request) => service.linkToken(ownerOf(request), request.query.redirectUrl),
  );

  r.post(
    '/bank-link/public-token',
    {
      config: { auth: Access.apiKeyOrUser },
      schema: {
        tags,
        summary: 'Exchange the public token from the Link page: stores the item and its accounts (the access token is kept sealed)',
        body: PublicTokenBody,
        response: { 201: BankLinkItem, ...errorResponses(403, 502) },
      },
    },
    async (request, reply) => reply.status(201).send(await service.exchange(ownerOf(request), request.body.publicToken, actorOf(request.principal))),
  );

  r.get(
    '/bank-link/items',
    { config: { auth: Access.apiKeyOrUser }, schema: { tags, summary: "The caller's linked items with their accounts (masks only)", response: { 200: BankLinkItemList, ...errorResponses(403) } } },
    async (request) => service.listItems(ownerOf(request)),
  );

  r.delete(
    '/bank-link/items/:itemId',
    {
      config: { auth: Access.apiKeyOrUser },
      schema: {
        tags,
        summary: 'Unlink an item: removed at the provider, then here',
        params: ItemIdParam,
        body: EmptyBody,
        response: { 200: RemovedResponse, ...errorResponses(403, 404, 502) },
      },
    },
    async (request) => service.removeItem(ownerOf(request), request.params.itemId, actorOf(request.principal)),
  );

  r.get(
    '/bank-link/tenant/originator',
    {
      config: { auth: Access.apiKey },
      schema: { tags, summary: "The tenant's own originator profile and diligence status (404 until one exists)", response: { 200: Originator, ...errorResponses(403, 404, 502) } },
    },
    async (request) => service.tenantOriginator(request.tenant.id),
  );

  r.get(
    '/bank-link/tenant/link-token',
    {
      config: { auth: Access.apiKey },
      schema: {
        tags,
        summary: "A link token for the tenant's own funding account",
        querystring: LinkTokenQuery,
        response: { 200: LinkTokenResponse, ...errorResponses(403, 502) },
      },
    },
    async (request) => service.linkToken({ ...ownerOf(request), userId: null }, request.query.redirectUrl),
  );
}
