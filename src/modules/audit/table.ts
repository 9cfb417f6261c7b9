import { sql } from 'drizzle-orm';
import { check, index, jsonb, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';

export const ACTOR_TYPES = ['user', 'api_key', 'system', 'anonymous', 'provider'] as const;
export type ActorType = (typeof ACTOR_TYPES)[number];

/**
 * The one history store: append-only record of security-relevant events and of every state
 * change of a tracked object (a KYC attempt, an accreditation claim), which carries
 * `object_type` and `object_id`. The database refuses UPDATE, DELETE and
 * TRUNCATE on it (triggers in a custom migration). No foreign key to tenants: the record
 * outlives what it describes.
 */
export const auditEvents = pgTable(
  'audit_events',
  {
    tenantId: uuid('tenant_id').notNull(),
    /** UUIDv7: time ordered; lists are newest first by id. */
    id: uuid('id').notNull(),
    /** e.g. `login.succeeded`, `refresh.reused`, `2fa.enabled`. */
    type: text('type').notNull(),
    actorType: text('actor_type').$type<ActorType>().notNull(),
    /** The user id or API key id; null for system and anonymous actors. */
    actorId: text('actor_id'),
    /** The user the event is about, when there is one. */
    subjectUserId: uuid('subject_user_id'),
    ip: text('ip'),
    /** Truncated to 512 characters. */
    userAgent: text('user_agent'),
    /** Event specifics; never secrets (secret-named fields are redacted before storing). */
    /** The object whose history this row is part of (`kyc`, `accreditation`), when there is one. */
    objectType: text('object_type'),
    objectId: uuid('object_id'),
    details: jsonb('details').$type<Record<string, unknown>>().notNull().default(sql`'{}'::jsonb`),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [
    primaryKey({ name: 'audit_events_pkey', columns: [t.tenantId, t.id] }),
    index('audit_events_subject_idx').on(t.tenantId, t.subjectUserId, t.id),
    index('audit_events_type_idx').on(t.tenantId, t.type, t.id),
    /** Time ranges (GET /audit-events?from=&to=, the NDJSON export): read newest first along it. */
    index('audit_events_created_idx').on(t.tenantId, t.createdAt, t.id),
    index('audit_events_object_idx').on(t.tenantId, t.objectType, t.objectId, t.id).where(sql`${t.objectId} is not null`),
    check('audit_events_actor_type_check', sql`${t.actorType} in ('user', 'api_key', 'system', 'anonymous', 'provider')`),
  ],
);

export type AuditEventRow = typeof auditEvents.$inferSelect;
export type NewAuditEventRow = typeof auditEvents.$inferInsert;
