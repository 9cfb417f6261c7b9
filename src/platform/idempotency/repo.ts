import { and, eq, lte, sql } from 'drizzle-orm';
import { andTenantIn } from '../db/only-tenants.js';
import type { DbOrTx } from '../db/client.js';
import { preparedQuery } from '../db/prepared.js';
import { idempotencyKeys, type IdempotencyRow } from './table.js';

/** Where a key lives: (tenant, scope, caller, key) is the primary key. */
export interface KeyRef {
  scope: string;
  caller: string;
  key: string;
}

export interface ClaimValues {
  requestHash: string;
  claimToken: string;
  leaseUntil: Date;
  createdAt: Date;
  expiresAt: Date;
}

export interface StoredAnswer {
  statusCode: number;
  contentType: string | null;
  body: string;
}

const t = idempotencyKeys;

function byRef(tenantId: string, ref: KeyRef) {
  return and(eq(t.tenantId, tenantId), eq(t.scope, ref.scope), eq(t.caller, ref.caller), eq(t.key, ref.key));
}

type RefParams = { tenantId: string; scope: string; caller: string; key: string };
type ClaimParams = RefParams & { requestHash: string; claimToken: string; leaseUntil: Date; createdAt: Date; expiresAt: Date };
type FinishParams = RefParams & { token: string; statusCode: number; contentType: string | null; body: string };
const p = <K extends string>(name: K) => sql.placeholder(name);
const byRefPlaceholders = () => and(eq(t.tenantId, p('tenantId')), eq(t.scope, p('scope')), eq(t.caller, p('caller')), eq(t.key, p('key')));

export function createIdempotencyRepo(db: DbOrTx) {
  // The claim and the answer of every value-moving call, as prepared statements.
  const claimStatement = preparedQuery<Array<{ key: string }>, ClaimParams>(db, 'idempotency_claim', (q) =>
    q
      .insert(t)
      .values({
        tenantId: p('tenantId'), scope: p('scope'), caller: p('caller'), key: p('key'), requestHash: p('requestHash'), claimToken: p('claimToken'),
        leaseUntil: p('leaseUntil'), createdAt: p('createdAt'), expiresAt: p('expiresAt'), state: 'running',
      })
      .onConflictDoNothing()
      .returning({ key: t.key }),
  );
  const finishStatement = preparedQuery<Array<{ key: string }>, FinishParams>(db, 'idempotency_finish', (q) =>
    q
      .update(t)
      .set({ state: 'done', statusCode: sql`${p('statusCode')}`, contentType: sql`${p('contentType')}`, body: sql`${p('body')}` })
      .where(and(byRefPlaceholders(), eq(t.state, 'running'), eq(t.claimToken, p('token'))))
      .returning({ key: t.key }),
  );
  return {
    /** Inserts the running claim; false when a row for the key exists (the primary key decides). */
    async claim(tenantId: string, ref: KeyRef, values: ClaimValues, tx: DbOrTx = db): Promise<boolean> {
      const rows = await claimStatement({ tenantId, scope: ref.scope, caller: ref.caller, key: ref.key, ...values }, tx);
      return rows.length === 1;
    },

    async find(tenantId: string, ref: KeyRef, tx: DbOrTx = db): Promise<IdempotencyRow | undefined> {
      const [row] = await tx.select().from(t).where(byRef(tenantId, ref)).limit(1);
      return row;
    },

    /** Removes the key's row if it has expired (a repeat after expiry runs as a new request). */
    async deleteExpired(tenantId: string, ref: KeyRef, now: Date, tx: DbOrTx = db): Promise<boolean> {
      const rows = await tx.delete(t).where(and(byRef(tenantId, ref), lte(t.expiresAt, now))).returning({ key: t.key });
      return rows.length === 1;
    },

    /** Takes over a running claim whose lease has passed; false when another request got there first. */
    async takeOver(tenantId: string, ref: KeyRef, oldToken: string, newToken: string, leaseUntil: Date, now: Date, tx: DbOrTx = db): Promise<boolean> {
      const rows = await tx
        .update(t)
        .set({ claimToken: newToken, leaseUntil })
        .where(and(byRef(tenantId, ref), eq(t.state, 'running'), eq(t.claimToken, oldToken), lte(t.leaseUntil, now)))
        .returning({ key: t.key });
      return rows.length === 1;
    },

    /** Stores the answer of the claim holder; false when the claim is no longer its own. */
    async finish(tenantId: string, ref: KeyRef, token: string, answer: StoredAnswer, tx: DbOrTx = db): Promise<boolean> {
      const rows = await finishStatement({ tenantId, scope: ref.scope, caller: ref.caller, key: ref.key, token, statusCode: answer.statusCode, contentType: answer.contentType, body: answer.body }, tx);
      return rows.length === 1;
    },

    /** Gives the key back (the work failed): the next request with it runs afresh. */
    async release(tenantId: string, ref: KeyRef, token: string, tx: DbOrTx = db): Promise<boolean> {
      const rows = await tx
        .delete(t)
        .where(and(byRef(tenantId, ref), eq(t.state, 'running'), eq(t.claimToken, token)))
        .returning({ key: t.key });
      return rows.length === 1;
    },

    /**
     * Maintenance across tenants (the one query here without a tenant): deletes up to `limit`
     * expired rows, oldest first, and returns how many went. `onlyTenants` limits it (tests
     * sharing one PostgreSQL).
     */
    async pruneExpired(now: Date, limit: number, onlyTenants?: readonly string[], tx: DbOrTx = db): Promise<number> {
      if (onlyTenants?.length === 0) return 0;
      const tenantFilter = sql` ${andTenantIn('tenant_id', onlyTenants)}`;
      const rows = await tx
        .delete(t)
        .where(
          sql`(${t.tenantId}, ${t.scope}, ${t.caller}, ${t.key}) in (
            select tenant_id, scope, caller, key from idempotency_keys
            where expires_at <= ${now}${tenantFilter} order by expires_at limit ${limit})`,
        )
        .returning({ key: t.key });
      return rows.length;
    },
  };
}

export type IdempotencyRepo = ReturnType<typeof createIdempotencyRepo>;
