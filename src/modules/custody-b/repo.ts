import { and, eq, isNull } from 'drizzle-orm';
import type { DbOrTx } from '../../platform/db/client.js';
import { custodyBChallenges, custodyBUsers, type CustodyBUserRow } from './table.js';

export function createCustodyBRepo(db: DbOrTx) {
  return {
    async findUser(tenantId: string, userId: string): Promise<CustodyBUserRow | undefined> {
      const [row] = await db
        .select()
        .from(custodyBUsers)
        .where(and(eq(custodyBUsers.tenantId, tenantId), eq(custodyBUsers.userId, userId)))
        .limit(1);
      return row;
    },
    async upsertPending(tenantId: string, row: Omit<typeof custodyBUsers.$inferInsert, 'tenantId' | 'status'>): Promise<void> {
      await db
        .insert(custodyBUsers)
        .values({ ...row, tenantId, status: 'pending' })
        .onConflictDoUpdate({
          target: [custodyBUsers.tenantId, custodyBUsers.userId],
          set: {
            providerUserId: row.providerUserId,
            username: row.username,
            registrationTokenSealed: row.registrationTokenSealed,
            registrationExpiresAt: row.registrationExpiresAt,
            updatedAt: row.updatedAt,
          },
          setWhere: eq(custodyBUsers.status, 'pending'),
        });
    },
    /** Pending -> registered; false when it was registered meanwhile. */
    async markRegistered(tenantId: string, userId: string, values: { providerUserId: string; credential: { uuid: string; kind: string; name: string }; at: Date }): Promise<boolean> {
      const rows = await db
        .update(custodyBUsers)
        .set({ status: 'registered', providerUserId: values.providerUserId, credential: values.credential, registeredAt: values.at, updatedAt: values.at, registrationTokenSealed: null, registrationExpiresAt: null })
        .where(and(eq(custodyBUsers.tenantId, tenantId), eq(custodyBUsers.userId, userId), eq(custodyBUsers.status, 'pending')))
        .returning({ userId: custodyBUsers.userId });
      return rows.length > 0;
    },
    async insertChallenge(tenantId: string, row: Omit<typeof custodyBChallenges.$inferInsert, 'tenantId'>): Promise<void> {
      await db.insert(custodyBChallenges).values({ ...row, tenantId });
    },
    async findChallenge(tenantId: string, identifierHash: string) {
      const [row] = await db
        .select()
        .from(custodyBChallenges)
        .where(and(eq(custodyBChallenges.tenantId, tenantId), eq(custodyBChallenges.identifierHash, identifierHash)))
        .limit(1);
      return row;
    },
    /** Takes the challenge once: false when it was taken already. */
    async consumeChallenge(tenantId: string, identifierHash: string, at: Date): Promise<boolean> {
      const rows = await db
        .update(custodyBChallenges)
        .set({ consumedAt: at })
        .where(and(eq(custodyBChallenges.tenantId, tenantId), eq(custodyBChallenges.identifierHash, identifierHash), isNull(custodyBChallenges.consumedAt)))
        .returning({ id: custodyBChallenges.identifierHash });
      return rows.length > 0;
    },
  };
}

export type CustodyBRepo = ReturnType<typeof createCustodyBRepo>;
