import { and, asc, count, desc, eq, inArray, lt, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '../../platform/db/client.js';
import { rowCountQuery } from '../../platform/db/counters-table.js';
import type { PageParams } from '../../platform/http/pagination.js';
import { auditEvents, type AuditEventRow, type NewAuditEventRow } from './table.js';

export interface AuditFilters {
  userId?: string;
  type?: string;
}

function filterConditions(tenantId: string, filters: AuditFilters): SQL[] {
  const conditions: SQL[] = [eq(auditEvents.tenantId, tenantId)];
  if (filters.userId !== undefined) conditions.push(eq(auditEvents.subjectUserId, filters.userId));
  if (filters.type !== undefined) conditions.push(eq(auditEvents.type, filters.type));
  return conditions;
}

/** Insert and read only: the table is append-only (the database refuses the rest). */
export function createAuditRepo(db: DbOrTx) {
  return {
    async insert(tenantId: string, row: Omit<NewAuditEventRow, 'tenantId'>, tx: DbOrTx = db): Promise<void> {
      await tx.insert(auditEvents).values({ ...row, tenantId });
    },

    /** The same insert, built but not run: for writeTogether with the change it records. */
    insertStatement(tenantId: string, row: Omit<NewAuditEventRow, 'tenantId'>): SQL {
      return db.insert(auditEvents).values({ ...row, tenantId }).getSQL();
    },

    /** The rows of tracked objects, oldest first (the object index). */
    async history(tenantId: string, objectType: string, objectIds: string[], tx: DbOrTx = db): Promise<AuditEventRow[]> {
      if (objectIds.length === 0) return [];
      return tx
        .select()
        .from(auditEvents)
        .where(and(eq(auditEvents.tenantId, tenantId), eq(auditEvents.objectType, objectType), inArray(auditEvents.objectId, objectIds)))
        .orderBy(asc(auditEvents.id));
    },

    /** Unfiltered: the trigger-kept counter; filtered: an indexed count. */
    async count(tenantId: string, filters: AuditFilters, tx: DbOrTx = db): Promise<number> {
      if (filters.userId === undefined && filters.type === undefined) {
        const [row] = await rowCountQuery(tx, 'audit_events', tenantId);
        return Number(row?.n ?? 0);
      }
      const [row] = await tx
        .select({ n: count() })
        .from(auditEvents)
        .where(and(...filterConditions(tenantId, filters)));
      return Number(row?.n ?? 0);
    },

    /** Newest first; `beforeId` pages backwards along (tenant_id[, filter], id). */
    async list(tenantId: string, filters: AuditFilters, page: PageParams, tx: DbOrTx = db): Promise<AuditEventRow[]> {
      const conditions = filterConditions(tenantId, filters);
      if (page.beforeId) conditions.push(lt(auditEvents.id, page.beforeId));
      return tx
        .select()
        .from(auditEvents)
        .where(and(...conditions))
        .orderBy(desc(auditEvents.id))
        .limit(page.limit)
        .offset(page.offset);
    },
  };
}

export type AuditRepo = ReturnType<typeof createAuditRepo>;
