import { and, eq, isNull, lt } from 'drizzle-orm';
import type { DbOrTx } from '../../../platform/db/client.js';
import { idpLoginStates, userIdentities, type IdpLoginStateRow, type UserIdentityRow } from './table.js';

export function createIdpRepo(db: DbOrTx) {
  return {
    async insertState(row: typeof idpLoginStates.$inferInsert, tx: DbOrTx = db): Promise<void> {
      await tx.insert(idpLoginStates).values(row);
    },

    /**
     * The one lookup without a tenant: the callback comes back from the provider with the state
     * alone, and the state (a 32-byte secret, looked up by its hash) names its tenant.
     */
    async findStateByHash(stateHash: string, tx: DbOrTx = db): Promise<IdpLoginStateRow | undefined> {
      const [row] = await tx.select().from(idpLoginStates).where(eq(idpLoginStates.stateHash, stateHash)).limit(1);
      return row;
    },

    /** Marks the state used; false when another request consumed it first. */
    async consumeState(tenantId: string, id: string, at: Date, tx: DbOrTx = db): Promise<boolean> {
      const rows = await tx
        .update(idpLoginStates)
        .set({ consumedAt: at })
        .where(and(eq(idpLoginStates.tenantId, tenantId), eq(idpLoginStates.id, id), isNull(idpLoginStates.consumedAt)))
        .returning({ id: idpLoginStates.id });
      return rows.length > 0;
    },

    /** Removes the tenant's states that expired before `before` (kept a while so a late replay reads "expired"). */
    async purgeStates(tenantId: string, before: Date, tx: DbOrTx = db): Promise<void> {
      await tx.delete(idpLoginStates).where(and(eq(idpLoginStates.tenantId, tenantId), lt(idpLoginStates.expiresAt, before)));
    },

    async findIdentity(tenantId: string, issuer: string, subject: string, tx: DbOrTx = db): Promise<UserIdentityRow | undefined> {
      const [row] = await tx
        .select()
        .from(userIdentities)
        .where(and(eq(userIdentities.tenantId, tenantId), eq(userIdentities.issuer, issuer), eq(userIdentities.subject, subject)))
        .limit(1);
      return row;
    },

    async insertIdentity(row: UserIdentityRow, tx: DbOrTx = db): Promise<void> {
      await tx.insert(userIdentities).values(row);
    },

    async touchIdentity(tenantId: string, issuer: string, subject: string, at: Date, tx: DbOrTx = db): Promise<void> {
      await tx
        .update(userIdentities)
        .set({ lastLoginAt: at })
        .where(and(eq(userIdentities.tenantId, tenantId), eq(userIdentities.issuer, issuer), eq(userIdentities.subject, subject)));
    },
  };
}

export type IdpRepo = ReturnType<typeof createIdpRepo>;
