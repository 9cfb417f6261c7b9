import { and, desc, eq } from 'drizzle-orm';
import type { DbOrTx } from '../../platform/db/client.js';
import {
  businessProfileEvents,
  businessProfiles,
  type BusinessProfileRow,
} from './table.js';

/** Business profiles, the webhook events applied to them, and the per-tenant provider settings. */
export function createBusinessProfilesRepo(db: DbOrTx) {
  return {
    async insert(tenantId: string, row: Omit<BusinessProfileRow, 'tenantId'>, tx: DbOrTx = db): Promise<BusinessProfileRow> {
      const [created] = await tx.insert(businessProfiles).values({ ...row, tenantId }).returning();
      return created!;
    },

    /** The entity's newest submission. */
    async latest(tenantId: string, entityId: string, provider: string, tx: DbOrTx = db): Promise<BusinessProfileRow | undefined> {
      const [row] = await tx
        .select()
        .from(businessProfiles)
        .where(and(eq(businessProfiles.tenantId, tenantId), eq(businessProfiles.entityId, entityId), eq(businessProfiles.provider, provider)))
        .orderBy(desc(businessProfiles.id))
        .limit(1);
      return row;
    },

    async findById(tenantId: string, id: string, tx: DbOrTx = db, lock = false): Promise<BusinessProfileRow | undefined> {
      const query = tx.select().from(businessProfiles).where(and(eq(businessProfiles.tenantId, tenantId), eq(businessProfiles.id, id))).limit(1);
      const [row] = lock ? await query.for('update') : await query;
      return row;
    },

    async findByProviderId(tenantId: string, provider: string, providerBusinessId: string, tx: DbOrTx = db): Promise<BusinessProfileRow | undefined> {
      const [row] = await tx
        .select()
        .from(businessProfiles)
        .where(and(eq(businessProfiles.tenantId, tenantId), eq(businessProfiles.provider, provider), eq(businessProfiles.providerBusinessId, providerBusinessId)))
        .limit(1);
      return row;
    },

    async update(tenantId: string, id: string, changes: Partial<Omit<BusinessProfileRow, 'tenantId' | 'id'>>, tx: DbOrTx = db): Promise<BusinessProfileRow> {
      const [row] = await tx.update(businessProfiles).set(changes).where(and(eq(businessProfiles.tenantId, tenantId), eq(businessProfiles.id, id))).returning();
      return row!;
    },

    /** False when the event was seen before (a replay). */
    async insertEvent(tenantId: string, row: Omit<typeof businessProfileEvents.$inferInsert, 'tenantId'>, tx: DbOrTx = db): Promise<boolean> {
      const inserted = await tx.insert(businessProfileEvents).values({ ...row, tenantId }).onConflictDoNothing().returning({ id: businessProfileEvents.eventId });
      return inserted.length === 1;
    },
  };
}

export type BusinessProfilesRepo = ReturnType<typeof createBusinessProfilesRepo>;
