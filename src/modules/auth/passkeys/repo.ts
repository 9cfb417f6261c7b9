import { and, asc, count, eq, gt, isNull, lt } from 'drizzle-orm';
import type { DbOrTx } from '../../../platform/db/client.js';
import { passkeyChallenges, passkeys, type PasskeyChallengeRow, type PasskeyRow } from './table.js';

export function createPasskeyRepo(db: DbOrTx) {
  return {
    async insertChallenge(row: typeof passkeyChallenges.$inferInsert, tx: DbOrTx = db): Promise<void> {
      await tx.insert(passkeyChallenges).values(row);
    },

    /**
     * Claims the tenant's live challenge with this hash in one statement (single use under
     * concurrency): the row when it was live, undefined when unknown, used, expired or of
     * another tenant or purpose.
     */
    async consumeChallenge(tenantId: string, purpose: PasskeyChallengeRow['purpose'], challengeHash: string, now: Date, tx: DbOrTx = db): Promise<PasskeyChallengeRow | undefined> {
      const [row] = await tx
        .update(passkeyChallenges)
        .set({ consumedAt: now })
        .where(
          and(
            eq(passkeyChallenges.tenantId, tenantId),
            eq(passkeyChallenges.purpose, purpose),
            eq(passkeyChallenges.challengeHash, challengeHash),
            isNull(passkeyChallenges.consumedAt),
            gt(passkeyChallenges.expiresAt, now),
          ),
        )
        .returning();
      return row;
    },

    /** Removes the tenant's challenges that expired before `before`. */
    async purgeChallenges(tenantId: string, before: Date, tx: DbOrTx = db): Promise<void> {
      await tx.delete(passkeyChallenges).where(and(eq(passkeyChallenges.tenantId, tenantId), lt(passkeyChallenges.expiresAt, before)));
    },

    async insert(row: typeof passkeys.$inferInsert, tx: DbOrTx = db): Promise<void> {
      await tx.insert(passkeys).values(row);
    },

    async listForUser(tenantId: string, userId: string, tx: DbOrTx = db): Promise<PasskeyRow[]> {
      return tx
        .select()
        .from(passkeys)
        .where(and(eq(passkeys.tenantId, tenantId), eq(passkeys.userId, userId)))
        .orderBy(asc(passkeys.createdAt), asc(passkeys.id));
    },

    async countForUser(tenantId: string, userId: string, tx: DbOrTx = db): Promise<number> {
      const [row] = await tx.select({ n: count() }).from(passkeys).where(and(eq(passkeys.tenantId, tenantId), eq(passkeys.userId, userId)));
      return row?.n ?? 0;
    },

    async findByCredentialId(tenantId: string, credentialId: string, tx: DbOrTx = db): Promise<PasskeyRow | undefined> {
      const [row] = await tx
        .select()
        .from(passkeys)
        .where(and(eq(passkeys.tenantId, tenantId), eq(passkeys.credentialId, credentialId)))
        .limit(1);
      return row;
    },

    /**
     * Stores what a verified login reported, only if the counter is still the one the check
     * read (a concurrent login with the same counter loses); false when it lost.
     */
    async recordUse(tenantId: string, id: string, expectedCounter: number, update: { counter: number; backedUp: boolean; deviceType: PasskeyRow['deviceType']; at: Date }, tx: DbOrTx = db): Promise<boolean> {
      const rows = await tx
        .update(passkeys)
        .set({ counter: update.counter, backedUp: update.backedUp, deviceType: update.deviceType, lastUsedAt: update.at })
        .where(and(eq(passkeys.tenantId, tenantId), eq(passkeys.id, id), eq(passkeys.counter, expectedCounter)))
        .returning({ id: passkeys.id });
      return rows.length > 0;
    },

    /** Removes a user's passkey; undefined when the user has no passkey with this id. */
    async remove(tenantId: string, userId: string, id: string, tx: DbOrTx = db): Promise<PasskeyRow | undefined> {
      const [row] = await tx
        .delete(passkeys)
        .where(and(eq(passkeys.tenantId, tenantId), eq(passkeys.userId, userId), eq(passkeys.id, id)))
        .returning();
      return row;
    },
  };
}

export type PasskeyRepo = ReturnType<typeof createPasskeyRepo>;
