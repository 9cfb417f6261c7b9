import { and, asc, eq } from 'drizzle-orm';
import { outboxEvents } from '../../src/platform/events/table.js';
import type { Harness, TestTenant } from './harness.js';

/** The outbox events of a tenant, oldest first, optionally of one type. */
export async function outbox(h: Harness, tenant?: TestTenant, type?: string) {
  const tenantId = (tenant ?? h.tenant).tenantId;
  const where = type ? and(eq(outboxEvents.tenantId, tenantId), eq(outboxEvents.type, type)) : eq(outboxEvents.tenantId, tenantId);
  return h.database.db.select().from(outboxEvents).where(where).orderBy(asc(outboxEvents.seq));
}
