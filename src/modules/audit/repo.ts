import { and, asc, count, desc, eq, gte, inArray, lt, sql, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '../../platform/db/client.js';
import { rowCountQuery } from '../../platform/db/counters-table.js';
import { rowInsertTemplate, runTemplateWrite, type TemplateWrite } from '../../platform/db/write-together.js';
import type { PageParams } from '../../platform/http/pagination.js';
import { auditEvents, type AuditEventRow } from './table.js';

export interface AuditFilters {
  userId?: string;
  type?: string;
  /** created_at >= from */
  from?: Date;
  /** created_at < to */
  to?: Date;
}

const ranged = (filters: AuditFilters) => filters.from !== undefined || filters.to !== undefined;

function filterConditions(tenantId: string, filters: AuditFilters): SQL[] {
  const conditions: SQL[] = [eq(auditEvents.tenantId, tenantId)];
  if (filters.userId !== undefined) conditions.push(eq(auditEvents.subjectUserId, filters.userId));
  if (filters.type !== undefined) conditions.push(eq(auditEvents.type, filters.type));
  if (filters.from !== undefined) conditions.push(gte(auditEvents.createdAt, filters.from));
  if (filters.to !== undefined) conditions.push(lt(auditEvents.createdAt, filters.to));
  return conditions;
}

/** The created_at of a cursor row; for an id of no row, the time a UUIDv7 carries. */
function cursorTime(row: { createdAt: Date } | undefined, id: string): Date {
  if (row) return row.createdAt;
  const ms = parseInt(id.replace(/-/g, '').slice(0, 12), 16);
  return new Date(Number.isFinite(ms) ? Math.min(ms, 8.64e15) : 0);
}

const insertRow = rowInsertTemplate(auditEvents);

/** Insert and read only: the table is append-only (the database refuses the rest). */
export function createAuditRepo(db: DbOrTx) {
  return {
    async insert(tenantId: string, row: Omit<AuditEventRow, 'tenantId'>, tx: DbOrTx = db): Promise<void> {
      await runTemplateWrite(tx, insertRow(tx, { ...row, tenantId }));
    },

    /** The same insert of a whole row, not yet run: for writeTogether with the change it records. */
    insertStatement(tenantId: string, row: Omit<AuditEventRow, 'tenantId'>): TemplateWrite {
      return insertRow(db, { ...row, tenantId });
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
      if (filters.userId === undefined && filters.type === undefined && !ranged(filters)) {
        const [row] = await rowCountQuery(tx, 'audit_events', tenantId);
        return Number(row?.n ?? 0);
      }
      const [row] = await tx
        .select({ n: count() })
        .from(auditEvents)
        .where(and(...filterConditions(tenantId, filters)));
      return Number(row?.n ?? 0);
    },

    /**
     * Newest first; `beforeId` pages backwards along (tenant_id[, filter], id). With a time range
     * the order is (created_at, id), newest first, along audit_events_created_idx, so a range far
     * back in a large log is read from its own end and a page past its start stops there (ids are
     * time-ordered too: in practice the same order); `beforeId` then names the row to continue
     * before.
     */
    async list(tenantId: string, filters: AuditFilters, page: PageParams, tx: DbOrTx = db): Promise<AuditEventRow[]> {
      const conditions = filterConditions(tenantId, filters);
      if (!ranged(filters)) {
        if (page.beforeId) conditions.push(lt(auditEvents.id, page.beforeId));
        return tx
          .select()
          .from(auditEvents)
          .where(and(...conditions))
          .orderBy(desc(auditEvents.id))
          .limit(page.limit)
          .offset(page.offset);
      }
      if (page.beforeId) {
        const [cursor] = await tx
          .select({ createdAt: auditEvents.createdAt })
          .from(auditEvents)
          .where(and(eq(auditEvents.tenantId, tenantId), eq(auditEvents.id, page.beforeId)))
          .limit(1);
        const at = cursorTime(cursor, page.beforeId).toISOString();
        conditions.push(sql`(${auditEvents.createdAt}, ${auditEvents.id}) < (${at}::timestamptz, ${page.beforeId}::uuid)`);
      }
      return tx
        .select()
        .from(auditEvents)
        .where(and(...conditions))
        .orderBy(desc(auditEvents.createdAt), desc(auditEvents.id))
        .limit(page.limit)
        .offset(page.offset);
    },
  };
}

export type AuditRepo = ReturnType<typeof createAuditRepo>;
