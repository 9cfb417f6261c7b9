import { and, eq, sql, type SQL } from 'drizzle-orm';
import type { Db, DbOrTx } from '../db/client.js';
import { runClaim, tableRows } from '../db/claim.js';
import { mailOutbox, type MailRow } from './table.js';

/** The mail worker's claim (run by runClaim): the pick in the queue's index order (mail_outbox_due_idx), once. */
export function mailClaimStatement(now: Date, limit: number, leaseUntil: Date, onlyTenants?: readonly string[]): SQL {
  const only = onlyTenants ? sql`and tenant_id in (${sql.join(onlyTenants.map((t) => sql`${t}::uuid`), sql`, `)})` : sql``;
  return sql`
    with due as materialized (
      select tenant_id, id from mail_outbox
      where status = 'pending' and (next_attempt_at is null or next_attempt_at <= ${now.toISOString()}::timestamptz) ${only}
      order by next_attempt_at asc nulls first, id asc
      limit ${limit}
      for update skip locked
    )
    update mail_outbox m set attempts = m.attempts + 1, next_attempt_at = ${leaseUntil.toISOString()}::timestamptz
    from due
    where m.tenant_id = due.tenant_id and m.id = due.id and m.status = 'pending'
    returning m.*`;
}

/**
 * The worker's queries on the mail outbox. Claiming is across tenants by nature (one queue
 * for the service); every other query names the tenant and the row.
 */
export function createMailQueue(db: Db) {
  return {
    /**
     * Claims up to `limit` due rows in one statement (runClaim): an UPDATE of the rows its pick locks
     * with FOR UPDATE SKIP LOCKED (rows another instance holds are skipped, never waited for),
     * counting the attempt and leasing them until `leaseUntil`. A worker that dies mid-send
     * leaves its rows to come back when the lease ends. `onlyTenants` narrows the claim (test
     * harnesses sharing a database). An empty queue, the usual case, costs one round trip.
     */
    async claimDue(now: Date, limit: number, leaseUntil: Date, onlyTenants?: readonly string[]): Promise<MailRow[]> {
      if (onlyTenants && onlyTenants.length === 0) return [];
      const claimed = tableRows(mailOutbox, await runClaim(db, mailClaimStatement(now, limit, leaseUntil, onlyTenants)));
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
