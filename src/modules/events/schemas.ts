import { Type, type Static } from 'typebox';
import { KeysetQueryFields, Paged } from '../../platform/http/pagination.js';
import { EVENT_TYPES } from './event-types.js';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);
const EventTypeName = Type.Enum<[...typeof EVENT_TYPES]>(EVENT_TYPES);
const Url = Type.String({ minLength: 1, maxLength: 2048, description: 'https to a public address (EVENTS_ALLOW_PRIVATE_URLS=on admits http and private addresses in tests)' });
const Types = Type.Array(EventTypeName, { maxItems: EVENT_TYPES.length, uniqueItems: true, description: 'Event types delivered here; empty = every type' });
const Description = Type.String({ maxLength: 256 });

export const EventEndpoint = Type.Object({
  id: Type.String({ format: 'uuid' }),
  url: Type.String(),
  description: Nullable(Type.String()),
  types: Type.Array(Type.String()),
  enabled: Type.Boolean(),
  disabledReason: Nullable(Type.String()),
  disabledAt: Nullable(Type.String({ format: 'date-time' })),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});

export const CreatedEventEndpoint = Type.Intersect([
  EventEndpoint,
  Type.Object({ secret: Type.String({ description: 'The whsec_ signing secret, shown only here' }) }),
]);

export const CreateEventEndpointBody = Type.Object(
  { url: Url, types: Type.Optional(Types), description: Type.Optional(Description), enabled: Type.Optional(Type.Boolean({ default: true })) },
  { additionalProperties: false },
);

export const UpdateEventEndpointBody = Type.Object(
  {
    url: Type.Optional(Url),
    types: Type.Optional(Types),
    description: Type.Optional(Nullable(Description)),
    enabled: Type.Optional(Type.Boolean()),
    disabledReason: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'Why, with enabled: false' })),
  },
  { additionalProperties: false },
);

export const RotatedSecret = Type.Object({
  secret: Type.String({ description: 'The new whsec_ signing secret, shown only here' }),
  previousSecretExpiresAt: Type.String({ format: 'date-time', description: 'Until then the previous secret signs too' }),
});

export const ReplayBody = Type.Object(
  {
    from: Type.Optional(Type.String({ format: 'date-time', description: 'Events created at or after this time' })),
    to: Type.Optional(Type.String({ format: 'date-time', description: 'Events created at or before this time' })),
    fromSeq: Type.Optional(Type.Integer({ minimum: 0, description: 'Events at or after this stream seq (the seq of GET /events)' })),
    toSeq: Type.Optional(Type.Integer({ minimum: 0, description: 'Events at or before this stream seq' })),
  },
  { additionalProperties: false },
);

export const ReplayResult = Type.Object({ queued: Type.Integer({ minimum: 0 }) });

export const EndpointListQuery = Type.Object(KeysetQueryFields, { additionalProperties: false });
export const EventEndpointList = Paged(EventEndpoint);

export const EventsQuery = Type.Object(
  {
    after: Type.Optional(
      Type.String({
        pattern: '^([0-9]{1,15}|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$',
        description: 'Cursor: a seq (the `next` of the previous page) or an event id; absent = from the start',
      }),
    ),
    limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
  },
  { additionalProperties: false },
);

export const StreamEvent = Type.Object({
  id: Type.String({ format: 'uuid', description: 'The event id; the webhook-id of its deliveries' }),
  seq: Type.Integer({ description: "The event's position in the tenant's stream" }),
  type: Type.String(),
  timestamp: Type.String({ format: 'date-time' }),
  data: Type.Record(Type.String(), Type.Unknown()),
});

export const EventPage = Type.Object({
  data: Type.Array(StreamEvent),
  next: Type.String({ description: 'Pass as `after` to read on; the same cursor when the page is empty' }),
  hasMore: Type.Boolean({ description: 'A full page: more may follow at once' }),
});

export type EventEndpointDto = Static<typeof EventEndpoint>;
export type CreateEventEndpointInput = Static<typeof CreateEventEndpointBody>;
export type UpdateEventEndpointInput = Static<typeof UpdateEventEndpointBody>;
export type ReplayInput = Static<typeof ReplayBody>;
export type EventPageDto = Static<typeof EventPage>;
