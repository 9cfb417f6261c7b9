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
  | 'entity.created'
  | 'entity.updated'
  | 'entity.member_added'
  | 'entity.member_removed'
  | 'entity.permission_granted'
  | 'entity.permission_revoked'
  | 'entity.payment_method_added'
  | 'entity.payment_method_updated'
  | 'entity.business_profile_submitted'
  | 'entity.business_profile_updated';

/** Appends an event to the outbox; call it inside the transaction that makes the change. */
export async function appendEvent(
  tx: DbOrTx,
  tenantId: string,
  type: EventType | (string & {}),
  payload: Record<string, unknown>,
): Promise<void> {
  await tx.insert(outboxEvents).values({ id: newId(), tenantId, type, payload });
}
