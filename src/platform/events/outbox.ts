import { newId } from '../clock.js';
import type { DbOrTx } from '../db/client.js';
import { runTemplateWrite, writeTemplate, type TemplateWrite } from '../db/write-together.js';
import { payloadProblem, testPayloadProblem, type EventPayload, type TestEventPayload } from './payloads.js';
import { outboxEvents } from './table.js';

/**
 * Every event type the service writes to the outbox, as one closed list: endpoint filters
 * choose from it, and appendEvent accepts nothing else.
 */
export const EVENT_TYPES = [
  'user.created',
  'user.updated',
  'user.email_verified',
  'kyc.created',
  'kyc.updated',
  'kyc.started',
  'kyc.submitted',
  'kyc.review',
  'kyc.approved',
  'kyc.declined',
  'kyc.resubmission_requested',
  'kyc.expired',
  'kyc.abandoned',
  'accreditation.submitted',
  'accreditation.decided',
  'wallet.registered',
  'document.uploaded',
  'document.signed',
  'transfer.submitted',
  'transfer.completed',
  'transfer.failed',
  'custody.vault_created',
  'entity.created',
  'entity.updated',
  'entity.member_added',
  'entity.member_removed',
  'entity.permission_granted',
  'entity.permission_revoked',
  'entity.payment_method_added',
  'entity.payment_method_updated',
  'entity.business_profile_submitted',
  'entity.business_profile_updated',
  'bank_link.item_linked',
  'bank_link.item_removed',
  'bank_link.item_updated',
  'bank_link.originator_updated',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/**
 * The test event's type: not one of EVENT_TYPES (no endpoint filter names it). Its outbox row
 * is written dispatched (delivered_at set) and without a stream position, so dispatch never fans
 * it out and the pull stream (GET /events) never shows it; the events module queues its one
 * delivery to the endpoint asked for.
 */
export const TEST_EVENT_TYPE = 'endpoint.test';

/** A payload that does not match its type's schema (src/platform/events/payloads.ts): a bug in the caller, a 500. */
export class EventPayloadError extends Error {
  constructor(type: EventType, problem: string) {
    super(`Invalid ${type} event payload: ${problem}`);
    this.name = 'EventPayloadError';
  }
}

/**
 * Appends an event to the outbox; call it inside the transaction that makes the change. The
 * payload is typed by its event type's schema and checked against it before the insert.
 */
export async function appendEvent<T extends EventType>(tx: DbOrTx, tenantId: string, type: T, payload: EventPayload<T>): Promise<void> {
  await runTemplateWrite(tx, appendEventStatement(tx, tenantId, type, payload));
}

/**
 * The same append, checked the same way, built but not run: for writeTogether with the change
 * it reports (platform/db/write-together.ts), so both commit in one statement.
 */
export function appendEventStatement<T extends EventType>(db: DbOrTx, tenantId: string, type: T, payload: EventPayload<T>): TemplateWrite {
  const problem = payloadProblem(type, payload);
  if (problem) throw new EventPayloadError(type, problem);
  return eventInsertTemplate(db, { id: newId(), tenantId, type, payload });
}

/** The outbox row of an event as writeTogether's writes take it: its sequence, time and stream position the database's. */
const eventInsertTemplate = writeTemplate<'id' | 'tenantId' | 'type' | 'payload'>((db, value) =>
  db.insert(outboxEvents).values({ id: value('id'), tenantId: value('tenantId'), type: value('type'), payload: value('payload') }),
);

/** Writes a test event's outbox row, already dispatched and outside the stream; returns its id and seq. */
export async function appendTestEvent(tx: DbOrTx, tenantId: string, payload: TestEventPayload, now: Date): Promise<{ id: string; seq: number }> {
  const problem = testPayloadProblem(payload);
  if (problem) throw new Error(`Invalid ${TEST_EVENT_TYPE} event payload: ${problem}`);
  const [row] = await tx
    .insert(outboxEvents)
    .values({ id: newId(), tenantId, type: TEST_EVENT_TYPE, payload: payload as Record<string, unknown>, createdAt: now, deliveredAt: now })
    .returning({ id: outboxEvents.id, seq: outboxEvents.seq });
  return row!;
}
