import { and, asc, count, desc, eq, inArray } from 'drizzle-orm';
import type { PageParams } from '../../platform/http/pagination.js';
import type { DbOrTx } from '../../platform/db/client.js';
import { businessProfiles, type BusinessProfileRow, type ProfileStatus } from './table.js';

/** Statuses in which a profile waits for the provider's decision. */
export const AWAITING: ProfileStatus[] = ['pending', 'in_review'];

/** Business profiles (their webhooks' event ids are the platform's inbound_webhooks). */
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

    async countAwaiting(tenantId: string, tx: DbOrTx = db): Promise<number> {
      const [row] = await tx
        .select({ n: count() })
        .from(businessProfiles)
        .where(and(eq(businessProfiles.tenantId, tenantId), inArray(businessProfiles.status, AWAITING)));
      return Number(row?.n ?? 0);
    },

    /** The tenant's profiles awaiting a decision, oldest first (the review queue). */
    async listAwaiting(tenantId: string, page: PageParams, tx: DbOrTx = db): Promise<BusinessProfileRow[]> {
      return tx
        .select()
        .from(businessProfiles)
        .where(and(eq(businessProfiles.tenantId, tenantId), inArray(businessProfiles.status, AWAITING)))
        .orderBy(asc(businessProfiles.createdAt), asc(businessProfiles.id))
        .limit(page.limit)
        .offset(page.offset);
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

  };
}

export type BusinessProfilesRepo = ReturnType<typeof createBusinessProfilesRepo>;
