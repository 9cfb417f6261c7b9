import type { EventType } from '../../platform/events/outbox.js';

/** Every event type the service emits, as a closed list (endpoint filters choose from it). */
export const EVENT_TYPES = [
  'user.created',
  'user.updated',
  'user.email_verified',
  'kyc.approved',
  'kyc.declined',
  'accreditation.decided',
  'wallet.registered',
  'transfer.submitted',
] as const satisfies readonly EventType[];

// Fails to compile when a type is added to the EventType union but not to this list.
type Missing = Exclude<EventType, (typeof EVENT_TYPES)[number]>;
const _exhaustive: [Missing] extends [never] ? true : Missing = true;
void _exhaustive;
