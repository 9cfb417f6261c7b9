import { and, asc, desc, eq, gt, isNull, lt } from 'drizzle-orm';
import type { Db } from '../../platform/db/client.js';
import {
  custodyBSandboxChallenges as challenges,
  custodyBSandboxCredentials as credentials,
  custodyBSandboxNonces as nonces,
  custodyBSandboxOrgs as orgs,
  custodyBSandboxSignatures as signatures,
  custodyBSandboxTokens as tokens,
  custodyBSandboxUserActions as userActions,
  custodyBSandboxUsers as users,
  custodyBSandboxWallets as wallets,
} from './table.js';

/** The sandbox's queries (its own books; every lookup is scoped by organisation). */
export function createSandboxStore(db: Db) {
  return {
    orgByTenant: async (tenantId: string) => (await db.select().from(orgs).where(eq(orgs.tenantId, tenantId)).limit(1))[0],
    orgById: async (orgId: string) => (await db.select().from(orgs).where(eq(orgs.orgId, orgId)).limit(1))[0],
    insertOrg: async (row: typeof orgs.$inferInsert) => (await db.insert(orgs).values(row).onConflictDoNothing().returning()).length > 0,

    insertUser: (row: typeof users.$inferInsert) => db.insert(users).values(row),
    userById: async (orgId: string, id: string) => (await db.select().from(users).where(and(eq(users.orgId, orgId), eq(users.id, id))).limit(1))[0],
    userByName: async (orgId: string, username: string) =>
      (await db.select().from(users).where(and(eq(users.orgId, orgId), eq(users.username, username))).limit(1))[0],
    markRegistered: (orgId: string, id: string) => db.update(users).set({ status: 'registered' }).where(and(eq(users.orgId, orgId), eq(users.id, id))),

    insertCredential: (row: typeof credentials.$inferInsert) => db.insert(credentials).values(row),
    credentialsOf: (orgId: string, userId: string) =>
      db.select().from(credentials).where(and(eq(credentials.orgId, orgId), eq(credentials.userId, userId))).orderBy(asc(credentials.createdAt)),
    credential: async (orgId: string, credId: string) =>
      (await db.select().from(credentials).where(and(eq(credentials.orgId, orgId), eq(credentials.credId, credId))).limit(1))[0],
    setCounter: (orgId: string, credId: string, counter: number) =>
      db.update(credentials).set({ counter }).where(and(eq(credentials.orgId, orgId), eq(credentials.credId, credId))),

    insertToken: (row: typeof tokens.$inferInsert) => db.insert(tokens).values(row),
    token: async (tokenHash: string) => (await db.select().from(tokens).where(eq(tokens.tokenHash, tokenHash)).limit(1))[0],
    deleteToken: (tokenHash: string) => db.delete(tokens).where(eq(tokens.tokenHash, tokenHash)),

    insertChallenge: (row: typeof challenges.$inferInsert) => db.insert(challenges).values(row),
    challenge: async (orgId: string, id: string) => (await db.select().from(challenges).where(and(eq(challenges.orgId, orgId), eq(challenges.id, id))).limit(1))[0],
    openRegistrationChallenge: async (orgId: string, userId: string, now: Date) =>
      (
        await db
          .select()
          .from(challenges)
          .where(and(eq(challenges.orgId, orgId), eq(challenges.userId, userId), eq(challenges.kind, 'registration'), isNull(challenges.consumedAt), gt(challenges.expiresAt, now)))
          .orderBy(desc(challenges.createdAt))
          .limit(1)
      )[0],
    /** Marks a challenge used; false when it was used already (a concurrent answer). */
    consumeChallenge: async (id: string, now: Date) =>
      (await db.update(challenges).set({ consumedAt: now }).where(and(eq(challenges.id, id), isNull(challenges.consumedAt))).returning({ id: challenges.id })).length > 0,

    insertUserAction: (row: typeof userActions.$inferInsert) => db.insert(userActions).values(row),
    /** Takes a user-action token once: the row, or undefined when unknown, used or expired. */
    consumeUserAction: async (tokenHash: string, now: Date) =>
      (
        await db
          .update(userActions)
          .set({ consumedAt: now })
          .where(and(eq(userActions.tokenHash, tokenHash), isNull(userActions.consumedAt), gt(userActions.expiresAt, now)))
          .returning()
      )[0],

    /** Records a request nonce; false when it was seen before. Old nonces are dropped. */
    recordNonce: async (nonce: string, now: Date, oldest: Date) => {
      await db.delete(nonces).where(lt(nonces.seenAt, oldest));
      return (await db.insert(nonces).values({ nonce, seenAt: now }).onConflictDoNothing().returning()).length > 0;
    },

    insertWallet: (row: typeof wallets.$inferInsert) => db.insert(wallets).values(row),
    wallet: async (orgId: string, id: string) => (await db.select().from(wallets).where(and(eq(wallets.orgId, orgId), eq(wallets.id, id))).limit(1))[0],
    walletsOf: (orgId: string, userId: string) =>
      db.select().from(wallets).where(and(eq(wallets.orgId, orgId), eq(wallets.userId, userId))).orderBy(asc(wallets.createdAt), asc(wallets.id)),

    insertSignature: (row: typeof signatures.$inferInsert) => db.insert(signatures).values(row),
  };
}

export type SandboxStore = ReturnType<typeof createSandboxStore>;
