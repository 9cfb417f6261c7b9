import { Type, type Static } from 'typebox';
import { KeysetDescQueryFields, KeysetQueryFields, Paged } from '../../platform/http/pagination.js';
import { EVENT_TYPES } from './event-types.js';
import { DELIVERY_STATUSES } from './table.js';

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

const DeliveryStatusName = Type.Enum<[...typeof DELIVERY_STATUSES]>(DELIVERY_STATUSES);
const When = (description: string) => Nullable(Type.String({ format: 'date-time', description }));

export const EventDelivery = Type.Object({
  eventId: Type.String({ format: 'uuid', description: 'The event id: the webhook-id of every attempt' }),
  eventType: Nullable(Type.String({ description: 'The event type (endpoint.test for a test event); null if the event is gone' })),
  /** pending (due or waiting for a retry), delivered (a 2xx answer), failed (given up). */
  status: DeliveryStatusName,
  attempts: Type.Integer({ minimum: 0, description: 'Attempts made so far (a retry by id keeps counting; a replay starts again at 0)' }),
  lastStatusCode: Nullable(Type.Integer({ description: 'The HTTP status of the last attempt; null when none answered' })),
  lastError: Nullable(Type.String({ description: 'Why the last attempt failed (HTTP 500, TIMEOUT, URL_PRIVATE_ADDRESS, ...)' })),
  lastAttemptAt: When('When the last attempt was made'),
  nextAttemptAt: When('When the next attempt is due: pending only, null while the endpoint is disabled; during an attempt, the end of its lease'),
  queuedAt: Type.String({ format: 'date-time', description: 'When it was queued (or queued again by a replay or a retry); the retry window counts from here' }),
  deliveredAt: When('When a 2xx answer came'),
});

export const DeliveryListQuery = Type.Object(
  { ...KeysetDescQueryFields, status: Type.Optional(DeliveryStatusName) },
  { additionalProperties: false },
);
export const EventDeliveryList = Paged(EventDelivery);
export const DeliveryParams = Type.Object({ id: Type.String({ format: 'uuid' }), eventId: Type.String({ format: 'uuid' }) });

export type EventDeliveryDto = Static<typeof EventDelivery>;
export type DeliveryListInput = Static<typeof DeliveryListQuery>;
export type EventEndpointDto = Static<typeof EventEndpoint>;
export type CreateEventEndpointInput = Static<typeof CreateEventEndpointBody>;
export type UpdateEventEndpointInput = Static<typeof UpdateEventEndpointBody>;
export type ReplayInput = Static<typeof ReplayBody>;
export type EventPageDto = Static<typeof EventPage>;
