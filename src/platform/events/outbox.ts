import { newId } from '../clock.js';
import type { DbOrTx } from '../db/client.js';
import { outboxEvents } from './table.js';

export type EventType =
  | 'user.created'
  | 'user.updated'
  | 'user.email_verified'
  | 'kyc.approved'
  | 'kyc.declined'
  | 'accreditation.decided'
  | 'wallet.registered'
  | 'transfer.submitted'
  | 'bank_link.item_linked'
  | 'bank_link.item_removed'
  | 'bank_link.item_updated'
  | 'bank_link.originator_updated';

/** Appends an event to the outbox; call it inside the transaction that makes the change. */
export async function appendEvent(
  tx: DbOrTx,
  tenantId: string,
  type: EventType | (string & {}),
  payload: Record<string, unknown>,
): Promise<void> {
  await tx.insert(outboxEvents).values({ id: newId(), tenantId, type, payload });
}
