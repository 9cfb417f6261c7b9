import { and, asc, count, eq, gt, isNotNull } from 'drizzle-orm';
import type { DbOrTx } from '../../platform/db/client.js';
import { outboxEvents } from '../../platform/events/table.js';
import type { PageParams } from '../../platform/http/pagination.js';
import { eventEndpoints, type EventEndpointRow } from './table.js';

/** Endpoints and the pull stream; every query names the tenant. */
export function createEventsRepo(db: DbOrTx) {
  const byId = (tenantId: string, id: string) => and(eq(eventEndpoints.tenantId, tenantId), eq(eventEndpoints.id, id));
  return {
    async insertEndpoint(tenantId: string, row: Omit<EventEndpointRow, 'tenantId'>, tx: DbOrTx = db): Promise<EventEndpointRow> {
      const [created] = await tx
        .insert(eventEndpoints)
        .values({ ...row, tenantId })
        .returning();
      return created!;
    },

    async findEndpoint(tenantId: string, id: string, tx: DbOrTx = db, lock = false): Promise<EventEndpointRow | undefined> {
      const query = tx.select().from(eventEndpoints).where(byId(tenantId, id)).limit(1);
      const [row] = lock ? await query.for('update') : await query;
      return row;
    },

    async countEndpoints(tenantId: string, tx: DbOrTx = db): Promise<number> {
      const [row] = await tx.select({ n: count() }).from(eventEndpoints).where(eq(eventEndpoints.tenantId, tenantId));
      return Number(row?.n ?? 0);
    },

    /** Oldest first. */
    async listEndpoints(tenantId: string, page: PageParams, tx: DbOrTx = db): Promise<EventEndpointRow[]> {
      return tx
        .select()
        .from(eventEndpoints)
        .where(and(eq(eventEndpoints.tenantId, tenantId), page.afterId ? gt(eventEndpoints.id, page.afterId) : undefined))
        .orderBy(asc(eventEndpoints.id))
        .limit(page.limit)
        .offset(page.offset);
    },

    async updateEndpoint(
      tenantId: string,
      id: string,
      changes: Partial<Omit<EventEndpointRow, 'tenantId' | 'id'>>,
      tx: DbOrTx = db,
    ): Promise<EventEndpointRow | undefined> {
      const [row] = await tx.update(eventEndpoints).set(changes).where(byId(tenantId, id)).returning();
      return row;
    },

    /** Deletes the endpoint and (cascade) its deliveries. */
    async deleteEndpoint(tenantId: string, id: string, tx: DbOrTx = db): Promise<boolean> {
      const rows = await tx.delete(eventEndpoints).where(byId(tenantId, id)).returning({ id: eventEndpoints.id });
      return rows.length > 0;
    },

    /** The pull stream: dispatched events after a position, in position order. */
    async listEventsAfter(tenantId: string, afterPosition: number, limit: number, tx: DbOrTx = db) {
      return tx
        .select({ id: outboxEvents.id, position: outboxEvents.position, type: outboxEvents.type, payload: outboxEvents.payload, createdAt: outboxEvents.createdAt })
        .from(outboxEvents)
        .where(and(eq(outboxEvents.tenantId, tenantId), isNotNull(outboxEvents.position), gt(outboxEvents.position, afterPosition)))
        .orderBy(asc(outboxEvents.position))
        .limit(limit);
    },

    /** The stream position of one of the tenant's events; null while not yet dispatched. */
    async positionOf(tenantId: string, eventId: string, tx: DbOrTx = db): Promise<{ position: number | null } | undefined> {
      const [row] = await tx
        .select({ position: outboxEvents.position })
        .from(outboxEvents)
        .where(and(eq(outboxEvents.tenantId, tenantId), eq(outboxEvents.id, eventId)))
        .limit(1);
      return row;
    },
  };
}

export type EventsRepo = ReturnType<typeof createEventsRepo>;
