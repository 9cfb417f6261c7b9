import { and, asc, eq, gt, gte, inArray, isNull, lt, max, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../platform/db/client.js';
import { xrplChallenges, xrplSubmissions, type XrplChallengeRow, type XrplSubmissionRow } from '../wallets/table.js';

/** The queries of the XRPL routes: challenges and tracked submissions. */
export function createXrplRepo(db: DbOrTx) {
  return {
    async insertChallenge(tenantId: string, row: Omit<XrplChallengeRow, 'tenantId'>, tx: DbOrTx = db): Promise<void> {
      await tx.insert(xrplChallenges).values({ ...row, tenantId });
    },

    async findChallenge(tenantId: string, nonceHash: string, tx: DbOrTx = db): Promise<XrplChallengeRow | undefined> {
      const [row] = await tx
        .select()
        .from(xrplChallenges)
        .where(and(eq(xrplChallenges.tenantId, tenantId), eq(xrplChallenges.nonceHash, nonceHash)))
        .limit(1);
      return row;
    },

    /** Claims an unused, unexpired challenge of this user in one statement: of two concurrent uses one wins. */
    async consumeChallenge(tenantId: string, nonceHash: string, userId: string, now: Date, tx: DbOrTx = db): Promise<boolean> {
      const rows = await tx
        .update(xrplChallenges)
        .set({ consumedAt: now })
        .where(
          and(
            eq(xrplChallenges.tenantId, tenantId),
            eq(xrplChallenges.nonceHash, nonceHash),
            eq(xrplChallenges.userId, userId),
            isNull(xrplChallenges.consumedAt),
            gt(xrplChallenges.expiresAt, now),
          ),
        )
        .returning({ nonceHash: xrplChallenges.nonceHash });
      return rows.length === 1;
    },

    async deleteExpiredChallenges(tenantId: string, userId: string, before: Date, tx: DbOrTx = db): Promise<void> {
      await tx
        .delete(xrplChallenges)
        .where(and(eq(xrplChallenges.tenantId, tenantId), eq(xrplChallenges.userId, userId), lt(xrplChallenges.expiresAt, before)));
    },

    /**
     * Serializes submissions of one account across instances: a transaction-scoped advisory
     * lock on the network and account (released at commit or rollback).
     */
    async lockAccount(network: string, account: string, tx: DbOrTx): Promise<void> {
      await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`xrpl-account:${network}:${account}`}, 0))`);
    },

    /**
     * The highest sequence of the account's transactions still in flight (sent, not final, and
     * not past their LastLedgerSequence at `validatedIndex`), in any tenant.
     */
    async maxInFlightSequence(network: string, account: string, validatedIndex: number, tx: DbOrTx = db): Promise<number | undefined> {
      const [row] = await tx
        .select({ n: max(xrplSubmissions.sequence) })
        .from(xrplSubmissions)
        .where(
          and(
            eq(xrplSubmissions.network, network),
            eq(xrplSubmissions.account, account),
            eq(xrplSubmissions.status, 'submitted'),
            gte(xrplSubmissions.lastLedgerSequence, validatedIndex),
          ),
        );
      return row?.n ?? undefined;
    },

    /** Inserts unless the tenant tracks this hash already; returns the stored row either way. */
    async insertSubmission(tenantId: string, row: Omit<typeof xrplSubmissions.$inferInsert, 'tenantId'>, tx: DbOrTx = db): Promise<{ row: XrplSubmissionRow; created: boolean }> {
      const [created] = await tx
        .insert(xrplSubmissions)
        .values({ ...row, tenantId })
        .onConflictDoNothing({ target: [xrplSubmissions.tenantId, xrplSubmissions.network, xrplSubmissions.hash] })
        .returning();
      if (created) return { row: created, created: true };
      const existing = await this.findSubmissionByHash(tenantId, row.network, row.hash, tx);
      return { row: existing!, created: false };
    },

    async findSubmissionByHash(tenantId: string, network: string, hash: string, tx: DbOrTx = db): Promise<XrplSubmissionRow | undefined> {
      const [row] = await tx
        .select()
        .from(xrplSubmissions)
        .where(and(eq(xrplSubmissions.tenantId, tenantId), eq(xrplSubmissions.network, network), eq(xrplSubmissions.hash, hash)))
        .limit(1);
      return row;
    },

    async updateSubmission(tenantId: string, id: string, changes: Partial<Pick<XrplSubmissionRow, 'status' | 'engineResult' | 'result' | 'ledgerIndex' | 'attempts' | 'updatedAt'>>, tx: DbOrTx = db, only?: { onlyIfStatus: XrplSubmissionRow['status'] }): Promise<XrplSubmissionRow | undefined> {
      const [row] = await tx
        .update(xrplSubmissions)
        .set(changes)
        .where(and(eq(xrplSubmissions.tenantId, tenantId), eq(xrplSubmissions.id, id), only ? eq(xrplSubmissions.status, only.onlyIfStatus) : undefined))
        .returning();
      return row;
    },

    /** Submissions not final yet (any tenant), least recently changed first, for the follower's sweep. */
    async listInFlight(limit: number, tx: DbOrTx = db): Promise<XrplSubmissionRow[]> {
      return tx.select().from(xrplSubmissions).where(inArray(xrplSubmissions.status, ['submitted'])).orderBy(asc(xrplSubmissions.updatedAt)).limit(limit);
    },
  };
}

export type XrplRepo = ReturnType<typeof createXrplRepo>;
