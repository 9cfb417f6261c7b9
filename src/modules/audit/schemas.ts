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
  objectType: Nullable(Type.String({ description: 'The tracked object whose history the event is part of: kyc or accreditation' })),
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
  },
  { additionalProperties: false },
);

export const AuditEventList = Paged(AuditEvent);

export type AuditEventDto = Static<typeof AuditEvent>;
