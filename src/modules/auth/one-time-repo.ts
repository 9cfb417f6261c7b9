import { and, eq, gt, inArray, isNull, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../platform/db/client.js';
import { rowInsertTemplate, type TemplateWrite } from '../../platform/db/write-together.js';
import { attemptCounters, oneTimeSecrets, type OneTimePurpose, type OneTimeSecretRow } from './table.js';

const insertSecret = rowInsertTemplate(oneTimeSecrets);
type NewSecret = Omit<typeof oneTimeSecrets.$inferInsert, 'consumedAt' | 'voided'>;

export function createOneTimeRepo(db: DbOrTx) {
  return {
    async insert(row: typeof oneTimeSecrets.$inferInsert, tx: DbOrTx = db): Promise<void> {
      await tx.insert(oneTimeSecrets).values(row);
    },

    /** A new live secret's insert, not yet run (writeTogether): from a template, its consumption and voiding unset. */
    insertStatement(row: NewSecret, tx: DbOrTx = db): TemplateWrite {
      return insertSecret(tx, { ...row, consumedAt: null, voided: false, data: row.data ?? null });
    },

    /** Voids the live secrets of a user and purpose(s) (a new code replaces the old one; a reset ends every reset secret). */
    async voidLive(tenantId: string, userId: string, purpose: OneTimePurpose | OneTimePurpose[], tx: DbOrTx = db): Promise<void> {
      const purposes = Array.isArray(purpose) ? purpose : [purpose];
      await tx
        .update(oneTimeSecrets)
        .set({ voided: true })
        .where(
          and(
            eq(oneTimeSecrets.tenantId, tenantId),
            eq(oneTimeSecrets.userId, userId),
            inArray(oneTimeSecrets.purpose, purposes),
            isNull(oneTimeSecrets.consumedAt),
            eq(oneTimeSecrets.voided, false),
          ),
        );
    },

    /** The live secret with this hash, if any (not consumed, not void, not expired). */
    async findLive(tenantId: string, purpose: OneTimePurpose, secretHash: string, now: Date, tx: DbOrTx = db): Promise<OneTimeSecretRow | undefined> {
      const [row] = await tx
        .select()
        .from(oneTimeSecrets)
        .where(
          and(
            eq(oneTimeSecrets.tenantId, tenantId),
            eq(oneTimeSecrets.purpose, purpose),
            eq(oneTimeSecrets.secretHash, secretHash),
            isNull(oneTimeSecrets.consumedAt),
            eq(oneTimeSecrets.voided, false),
            gt(oneTimeSecrets.expiresAt, now),
          ),
        )
        .limit(1);
      return row;
    },

    /** Marks a live secret consumed; false when someone else consumed it first (single use under concurrency). */
    async consume(tenantId: string, id: string, now: Date, tx: DbOrTx = db): Promise<boolean> {
      const rows = await tx
        .update(oneTimeSecrets)
        .set({ consumedAt: now })
        .where(and(eq(oneTimeSecrets.tenantId, tenantId), eq(oneTimeSecrets.id, id), isNull(oneTimeSecrets.consumedAt), eq(oneTimeSecrets.voided, false)))
        .returning({ id: oneTimeSecrets.id });
      return rows.length > 0;
    },

    async counter(tenantId: string, userId: string, purpose: string, tx: DbOrTx = db) {
      const [row] = await tx
        .select()
        .from(attemptCounters)
        .where(and(eq(attemptCounters.tenantId, tenantId), eq(attemptCounters.userId, userId), eq(attemptCounters.purpose, purpose)))
        .limit(1);
      return row;
    },

    /** Adds a failure, opening a new window when the old one ended; returns the new count. */
    async addFailure(tenantId: string, userId: string, purpose: string, now: Date, windowMs: number, tx: DbOrTx = db): Promise<number> {
      const windowStart = new Date(now.getTime() - windowMs);
      const [row] = await tx
        .insert(attemptCounters)
        .values({ tenantId, userId, purpose, failures: 1, windowStartedAt: now })
        .onConflictDoUpdate({
          target: [attemptCounters.tenantId, attemptCounters.userId, attemptCounters.purpose],
          set: {
            failures: sql`case when ${attemptCounters.windowStartedAt} < ${windowStart} then 1 else ${attemptCounters.failures} + 1 end`,
            windowStartedAt: sql`case when ${attemptCounters.windowStartedAt} < ${windowStart} then ${now} else ${attemptCounters.windowStartedAt} end`,
            lockedUntil: sql`case when ${attemptCounters.windowStartedAt} < ${windowStart} then null else ${attemptCounters.lockedUntil} end`,
          },
        })
        .returning({ failures: attemptCounters.failures });
      return row?.failures ?? 1;
    },

    async lock(tenantId: string, userId: string, purpose: string, until: Date, tx: DbOrTx = db): Promise<void> {
      await tx
        .update(attemptCounters)
        .set({ lockedUntil: until })
        .where(and(eq(attemptCounters.tenantId, tenantId), eq(attemptCounters.userId, userId), eq(attemptCounters.purpose, purpose)));
    },

    async resetCounter(tenantId: string, userId: string, purpose: string, tx: DbOrTx = db): Promise<void> {
      await tx
        .delete(attemptCounters)
        .where(and(eq(attemptCounters.tenantId, tenantId), eq(attemptCounters.userId, userId), eq(attemptCounters.purpose, purpose)));
    },
  };
}

export type OneTimeRepo = ReturnType<typeof createOneTimeRepo>;
