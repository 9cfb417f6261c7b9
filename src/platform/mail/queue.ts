import { and, eq, sql, type SQL } from 'drizzle-orm';
import { andTenantIn } from '../db/only-tenants.js';
import type { Db, DbOrTx } from '../db/client.js';
import { arrayLiteral } from '../db/array-literal.js';
import { runClaim, tableRows } from '../db/claim.js';
import { preparedSql } from '../db/prepared.js';
import { mailOutbox, type MailRow } from './table.js';

/** The mail worker's claim (run by runClaim): the pick in the queue's index order (mail_outbox_due_idx), once. */
export function mailClaimStatement(now: Date, limit: number, leaseUntil: Date, onlyTenants?: readonly string[]): SQL {
  const only = andTenantIn('tenant_id', onlyTenants);
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
 * A batch's sent rows recorded in one prepared statement, each fenced by its attempt count (see
 * claimedBy), its bodies erased. Each row names the status it must still have
 * ('pending') in the list, not as a constant: compared with a constant the partial due index
 * could serve, and PostgreSQL may scan every pending row of it instead of finding each row by
 * its primary key (as the delivery worker's mark found, delivery-repo.ts).
 */
const markSentStatement = preparedSql<{ tenantIds: string; ids: string; attempts: string; fromStatus: string; sentAt: string }>('mail_outbox_mark_sent', () => {
  const p = (name: string) => sql.placeholder(name);
  return sql`
    update mail_outbox m set status = 'sent', sent_at = ${p('sentAt')}::timestamptz, next_attempt_at = null, last_error = null, text = '', html = ''
    from unnest(${p('tenantIds')}::uuid[], ${p('ids')}::uuid[], ${p('attempts')}::int[], ${p('fromStatus')}::text[]) as k (tenant_id, id, attempts, from_status)
    where m.tenant_id = k.tenant_id and m.id = k.id and m.status = k.from_status and m.attempts = k.attempts
    returning m.id`;
});

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
     * Records the sent attempts of a batch of rows in one statement (one round trip for the mail
     * a batch sent). The attempt count fences each row: if its lease ran out and another worker
     * claimed it again, it is left as it is. Returns the ids it updated.
     */
    async markSentMany(rows: ReadonlyArray<Pick<MailRow, 'tenantId' | 'id' | 'attempts'>>, sentAt: Date, tx: DbOrTx = db): Promise<Set<string>> {
      if (rows.length === 0) return new Set();
      const result = await markSentStatement(
        {
          tenantIds: arrayLiteral(rows.map((r) => r.tenantId)),
          ids: arrayLiteral(rows.map((r) => r.id)),
          attempts: arrayLiteral(rows.map((r) => r.attempts)),
          fromStatus: arrayLiteral(rows.map(() => 'pending')),
          sentAt: sentAt.toISOString(),
        },
        tx,
      );
      return new Set(result.rows.map((r) => String(r.id)));
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
