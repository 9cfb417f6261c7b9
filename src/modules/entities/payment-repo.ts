import { and, asc, count, eq } from 'drizzle-orm';
import type { DbOrTx } from '../../platform/db/client.js';
import type { PageParams } from '../../platform/http/pagination.js';
import { entityPaymentMethods, type PaymentMethodRow } from './table.js';

export function createPaymentMethodsRepo(db: DbOrTx) {
  const where = (tenantId: string, entityId: string, includeArchived: boolean) =>
    includeArchived
      ? and(eq(entityPaymentMethods.tenantId, tenantId), eq(entityPaymentMethods.entityId, entityId))
      : and(eq(entityPaymentMethods.tenantId, tenantId), eq(entityPaymentMethods.entityId, entityId), eq(entityPaymentMethods.archived, false));

  return {
    async insert(tenantId: string, row: Omit<PaymentMethodRow, 'tenantId'>, tx: DbOrTx = db): Promise<PaymentMethodRow> {
      const [created] = await tx.insert(entityPaymentMethods).values({ ...row, tenantId }).returning();
      return created!;
    },

    /** A method of the entity (a method id of another entity is not found). */
    async find(tenantId: string, entityId: string, id: string, tx: DbOrTx = db, lock = false): Promise<PaymentMethodRow | undefined> {
      const query = tx
        .select()
        .from(entityPaymentMethods)
        .where(and(eq(entityPaymentMethods.tenantId, tenantId), eq(entityPaymentMethods.entityId, entityId), eq(entityPaymentMethods.id, id)))
        .limit(1);
      const [row] = lock ? await query.for('update') : await query;
      return row;
    },

    async update(tenantId: string, id: string, changes: Partial<Omit<PaymentMethodRow, 'tenantId' | 'id' | 'entityId'>>, tx: DbOrTx = db): Promise<PaymentMethodRow> {
      const [row] = await tx
        .update(entityPaymentMethods)
        .set(changes)
        .where(and(eq(entityPaymentMethods.tenantId, tenantId), eq(entityPaymentMethods.id, id)))
        .returning();
      return row!;
    },

    async count(tenantId: string, entityId: string, includeArchived: boolean): Promise<number> {
      const [row] = await db.select({ n: count() }).from(entityPaymentMethods).where(where(tenantId, entityId, includeArchived));
      return Number(row?.n ?? 0);
    },

    async list(tenantId: string, entityId: string, includeArchived: boolean, page: PageParams): Promise<PaymentMethodRow[]> {
      return db
        .select()
        .from(entityPaymentMethods)
        .where(where(tenantId, entityId, includeArchived))
        .orderBy(asc(entityPaymentMethods.id))
        .limit(page.limit)
        .offset(page.offset);
    },
  };
}

export type PaymentMethodsRepo = ReturnType<typeof createPaymentMethodsRepo>;
