import { and, asc, eq, inArray, isNull, lte, or, sql } from 'drizzle-orm';
import type { Db, DbOrTx } from '../db/client.js';
import { mailOutbox, type MailRow } from './table.js';

/**
 * The worker's queries on the mail outbox. Claiming is across tenants by nature (one queue
 * for the service); every other query names the tenant and the row.
 */
export function createMailQueue(db: Db) {
  return {
    /**
     * Claims up to `limit` due rows in one statement: an UPDATE of the rows its subquery locks
     * with FOR UPDATE SKIP LOCKED (rows another instance holds are skipped, never waited for),
     * counting the attempt and leasing them until `leaseUntil`. A worker that dies mid-send
     * leaves its rows to come back when the lease ends. `onlyTenants` narrows the claim (test
     * harnesses sharing a database). An empty queue, the usual case, costs one round trip.
     */
    async claimDue(now: Date, limit: number, leaseUntil: Date, onlyTenants?: readonly string[]): Promise<MailRow[]> {
      if (onlyTenants && onlyTenants.length === 0) return [];
      const due = db
        .select({ tenantId: mailOutbox.tenantId, id: mailOutbox.id })
        .from(mailOutbox)
        .where(
          and(
            eq(mailOutbox.status, 'pending'),
            or(isNull(mailOutbox.nextAttemptAt), lte(mailOutbox.nextAttemptAt, now)),
            onlyTenants ? inArray(mailOutbox.tenantId, [...onlyTenants]) : undefined,
          ),
        )
        .orderBy(sql`${mailOutbox.nextAttemptAt} asc nulls first`, asc(mailOutbox.id))
        .limit(limit)
        .for('update', { skipLocked: true });
      const claimed = await db
        .update(mailOutbox)
        .set({ attempts: sql`${mailOutbox.attempts} + 1`, nextAttemptAt: leaseUntil })
        .where(and(sql`(${mailOutbox.tenantId}, ${mailOutbox.id}) in ${due}`, eq(mailOutbox.status, 'pending')))
        .returning();
      return claimed.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    },

    /**
     * Records the outcome of the attempt numbered `attempts`. The attempt count fences the
     * update: if the lease ran out and another worker claimed the row again, this is a no-op.
     * Returns whether the row was updated.
     */
    async markSent(tenantId: string, id: string, attempts: number, sentAt: Date, tx: DbOrTx = db): Promise<boolean> {
      const rows = await tx
        .update(mailOutbox)
        .set({ status: 'sent', sentAt, nextAttemptAt: null, lastError: null, ...CLEARED_BODY })
        .where(claimedBy(tenantId, id, attempts))
        .returning({ id: mailOutbox.id });
      return rows.length > 0;
    },

    async markRetry(tenantId: string, id: string, attempts: number, nextAttemptAt: Date, lastError: string, tx: DbOrTx = db): Promise<boolean> {
      const rows = await tx
        .update(mailOutbox)
        .set({ nextAttemptAt, lastError })
        .where(claimedBy(tenantId, id, attempts))
        .returning({ id: mailOutbox.id });
      return rows.length > 0;
    },

    async markFailed(tenantId: string, id: string, attempts: number, lastError: string, tx: DbOrTx = db): Promise<boolean> {
      const rows = await tx
        .update(mailOutbox)
        .set({ status: 'failed', nextAttemptAt: null, lastError, ...CLEARED_BODY })
        .where(claimedBy(tenantId, id, attempts))
        .returning({ id: mailOutbox.id });
      return rows.length > 0;
    },

    /** Mail waiting to be sent (pending, due or not). */
    async backlog(): Promise<number> {
      const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(mailOutbox).where(eq(mailOutbox.status, 'pending'));
      return row?.n ?? 0;
    },
    async findById(tenantId: string, id: string, tx: DbOrTx = db): Promise<MailRow | undefined> {
      const [row] = await tx
        .select()
        .from(mailOutbox)
        .where(and(eq(mailOutbox.tenantId, tenantId), eq(mailOutbox.id, id)))
        .limit(1);
      return row;
    },
  };
}

/**
 * Bodies hold one-time codes and links: once a row is settled (sent or failed) they are
 * erased, so the outbox is no lasting store of live secrets. Recipient and subject remain.
 */
const CLEARED_BODY = { text: '', html: '' };

function claimedBy(tenantId: string, id: string, attempts: number) {
  return and(
    eq(mailOutbox.tenantId, tenantId),
    eq(mailOutbox.id, id),
    eq(mailOutbox.status, 'pending'),
    eq(mailOutbox.attempts, attempts),
  );
}

export type MailQueue = ReturnType<typeof createMailQueue>;
