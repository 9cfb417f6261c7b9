import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { Access } from '../../platform/http/access.js';
import { contextOf } from '../../platform/http/context.js';
import { EmptyBody, errorResponses, IdParam } from '../../platform/http/schemas.js';
import {
  CreatedEventEndpoint,
  CreateEventEndpointBody,
  DeliveryListQuery,
  DeliveryParams,
  EventDelivery,
  EventDeliveryList,
  EndpointListQuery,
  EventEndpoint,
  EventEndpointList,
  EventPage,
  EventsQuery,
  ReplayBody,
  ReplayResult,
  RotatedSecret,
  UpdateEventEndpointBody,
} from './schemas.js';
import type { EventsService } from './service.js';


export function eventsRoutes(app: FastifyInstance, deps: { events: EventsService }): void {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { events } = deps;
  const tags = ['Events'];

  r.post(
    '/event-endpoints',
    {
      config: { auth: Access.apiKeyOrAdmin },
      schema: {
        tags,
        summary: 'Add an event endpoint; the answer holds its signing secret, shown only here',
        body: CreateEventEndpointBody,
        response: { 201: CreatedEventEndpoint, ...errorResponses(403, 409) },
      },
    },
    async (request, reply) => reply.status(201).send(await events.create(request.tenant.id, request.body, contextOf(request, Access.apiKeyOrAdmin).actor)),
  );

  r.get(
    '/event-endpoints',
    {
      config: { auth: Access.apiKeyOrAdmin },
      schema: { tags, summary: "The tenant's event endpoints, oldest first", querystring: EndpointListQuery, response: { 200: EventEndpointList, ...errorResponses(403) } },
    },
    async (request) => events.list(request.tenant.id, request.query),
  );

  r.get(
    '/event-endpoints/:id',
    { config: { auth: Access.apiKeyOrAdmin }, schema: { tags, summary: 'One event endpoint', params: IdParam, response: { 200: EventEndpoint, ...errorResponses(403, 404) } } },
    async (request) => events.get(request.tenant.id, request.params.id),
  );

  r.patch(
    '/event-endpoints/:id',
    {
      config: { auth: Access.apiKeyOrAdmin },
      schema: {
        tags,
        summary: 'Change the URL, the type filter or the description; enable, or disable with a reason',
        params: IdParam,
        body: UpdateEventEndpointBody,
        response: { 200: EventEndpoint, ...errorResponses(403, 404) },
      },
    },
    async (request) => events.update(request.tenant.id, request.params.id, request.body, contextOf(request, Access.apiKeyOrAdmin).actor),
  );

  r.delete(
    '/event-endpoints/:id',
    { config: { auth: Access.apiKeyOrAdmin }, schema: { tags, summary: 'Remove an endpoint and its queued deliveries', params: IdParam, body: EmptyBody, response: { 204: Type.Null({ description: 'Removed' }), ...errorResponses(403, 404) } } },
    async (request, reply) => {
      await events.remove(request.tenant.id, request.params.id, contextOf(request, Access.apiKeyOrAdmin).actor);
      return reply.status(204).send(null);
    },
  );

  r.post(
    '/event-endpoints/:id/rotate-secret',
    {
      config: { auth: Access.apiKeyOrAdmin },
      schema: {
        tags,
        summary: 'A new signing secret (shown only here); the previous one also signs for 24 hours',
        params: IdParam,
        body: EmptyBody,
        response: { 200: RotatedSecret, ...errorResponses(403, 404) },
      },
    },
    async (request) => events.rotateSecret(request.tenant.id, request.params.id, contextOf(request, Access.apiKeyOrAdmin).actor),
  );

  r.post(
    '/event-endpoints/:id/replay',
    {
      config: { auth: Access.apiKeyOrAdmin },
      schema: {
        tags,
        summary: 'Queue a range of events (by time or by stream seq) for this endpoint again, with their original webhook-ids',
        params: IdParam,
        body: ReplayBody,
        response: { 202: ReplayResult, ...errorResponses(403, 404) },
      },
    },
    async (request, reply) => reply.status(202).send(await events.replay(request.tenant.id, request.params.id, request.body, contextOf(request, Access.apiKeyOrAdmin).actor)),
  );

  r.get(
    '/event-endpoints/:id/deliveries',
    {
      config: { auth: Access.apiKeyOrAdmin },
      schema: {
        tags,
        summary: "The endpoint's delivery log, newest event first (keyset paging with beforeId): attempts, last status code and error, next attempt",
        params: IdParam,
        querystring: DeliveryListQuery,
        response: { 200: EventDeliveryList, ...errorResponses(403, 404) },
      },
    },
    async (request) => events.deliveries(request.tenant.id, request.params.id, request.query),
  );

  r.post(
    '/event-endpoints/:id/test',
    {
      config: { auth: Access.apiKeyOrAdmin },
      schema: {
        tags,
        summary: 'Send a signed test event (endpoint.test) to this endpoint only, tried once; its outcome is in the delivery log',
        params: IdParam,
        body: EmptyBody,
        response: { 202: EventDelivery, ...errorResponses(403, 404, 409) },
      },
    },
    async (request, reply) => reply.status(202).send(await events.sendTest(request.tenant.id, request.params.id, contextOf(request, Access.apiKeyOrAdmin).actor)),
  );

  r.post(
    '/event-endpoints/:id/deliveries/:eventId/retry',
    {
      config: { auth: Access.apiKeyOrAdmin },
      schema: {
        tags,
        summary: 'Make one pending or failed delivery due now, with a fresh retry window',
        params: DeliveryParams,
        body: EmptyBody,
        response: { 202: EventDelivery, ...errorResponses(403, 404, 409) },
      },
    },
    async (request, reply) =>
      reply.status(202).send(await events.retryDelivery(request.tenant.id, request.params.id, request.params.eventId, contextOf(request, Access.apiKeyOrAdmin).actor)),
  );

  r.get(
    '/events',
    {
      config: { auth: Access.apiKey },
      schema: {
        tags,
        summary: "The tenant's events, oldest first, after a cursor (for consumers that pull instead of receiving webhooks)",
        querystring: EventsQuery,
        response: { 200: EventPage, ...errorResponses(403) },
      },
    },
    async (request) => events.pull(request.tenant.id, request.query.after, request.query.limit),
  );
}
