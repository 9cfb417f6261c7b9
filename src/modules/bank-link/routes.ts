import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Access } from '../../platform/http/access.js';
import { contextOf } from '../../platform/http/context.js';
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
import type { BankLinkService, TenantFacts } from './service.js';

/** The tenant's name and app URL (the call context carries the caller; whose accounts follows from it: service.ts, ownerOf). */
export function tenantFacts(request: FastifyRequest): TenantFacts {
  const appUrl = request.tenant.settings.appUrl;
  return { name: request.tenant.name, appUrl: typeof appUrl === 'string' ? appUrl : undefined };
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
    async (request) => service.linkToken(contextOf(request, Access.apiKeyOrUser), tenantFacts(request), request.query.redirectUrl),
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
    async (request, reply) => reply.status(201).send(await service.exchange(contextOf(request, Access.apiKeyOrUser), request.body.publicToken)),
  );

  r.get(
    '/bank-link/items',
    { config: { auth: Access.apiKeyOrUser }, schema: { tags, summary: "The caller's linked items with their accounts (masks only)", response: { 200: BankLinkItemList, ...errorResponses(403) } } },
    async (request) => service.listItems(contextOf(request, Access.apiKeyOrUser)),
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
    async (request) => service.removeItem(contextOf(request, Access.apiKeyOrUser), request.params.itemId),
  );

  r.get(
    '/bank-link/tenant/originator',
    {
      config: { auth: Access.apiKey },
      schema: { tags, summary: "The tenant's own originator profile and diligence status (404 until one exists)", response: { 200: Originator, ...errorResponses(403, 404, 502) } },
    },
    async (request) => service.tenantOriginator(contextOf(request, Access.apiKey).tenantId),
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
    async (request) => service.linkToken(contextOf(request, Access.apiKey), tenantFacts(request), request.query.redirectUrl),
  );
}
