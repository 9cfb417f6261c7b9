import { Type, type Static } from 'typebox';
import { KeysetDescQueryFields, Paged } from '../../platform/http/pagination.js';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

export const AUDIT_TYPE_PATTERN = '^[a-z0-9_]+(\\.[a-z0-9_]+)+$';

export const AuditEvent = Type.Object({
  id: Type.String({ format: 'uuid' }),
  type: Type.String({ description: 'What happened: one of the audit types listed at the top of this document (x-audit-types), e.g. login.succeeded' }),
  actorType: Type.Union([Type.Literal('user'), Type.Literal('api_key'), Type.Literal('system'), Type.Literal('anonymous'), Type.Literal('provider')]),
  actorId: Nullable(Type.String({ description: 'User id or API key id of the actor' })),
  subjectUserId: Nullable(Type.String({ format: 'uuid', description: 'The user the event is about' })),
  objectType: Nullable(Type.String({ description: 'The tracked object whose history the event is part of: kyc, accreditation or transfer' })),
  objectId: Nullable(Type.String({ format: 'uuid', description: 'Its id' })),
  ip: Nullable(Type.String()),
  userAgent: Nullable(Type.String()),
  details: Type.Record(Type.String(), Type.Unknown(), { description: 'Event specifics; never secrets' }),
  createdAt: Type.String({ format: 'date-time' }),
});

export const ListAuditEventsQuery = Type.Object(
  {
    ...KeysetDescQueryFields,
    userId: Type.Optional(Type.String({ format: 'uuid', description: 'Only events about this user' })),
    type: Type.Optional(Type.String({ maxLength: 64, pattern: AUDIT_TYPE_PATTERN, description: 'Only events of this type (exact)' })),
    from: Type.Optional(Type.String({ format: 'date-time', description: 'Only events created at or after this time' })),
    to: Type.Optional(Type.String({ format: 'date-time', description: 'Only events created before this time' })),
    format: Type.Optional(
      Type.Enum(['json', 'ndjson'], {
        description:
          'json (default): a page `{total, data}`. ndjson: every matching event, one JSON object a line, streamed (also chosen by `Accept: application/x-ndjson`; `format` wins over the header)',
      }),
    ),
  },
  { additionalProperties: false },
);

export const AuditEventList = Paged(AuditEvent);

export type ListAuditEventsInput = Static<typeof ListAuditEventsQuery>;
export type AuditEventDto = Static<typeof AuditEvent>;
