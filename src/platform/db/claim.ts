import { getTableColumns, sql, type SQL } from 'drizzle-orm';
import { PgDialect, type PgTable } from 'drizzle-orm/pg-core';
import { runsStatementsTogether, type Db } from './client.js';

/**
 * The one way a worker claims queued rows (event deliveries, mail, in-flight value moves): pick
 * the first due rows in the queue's order, lock them (FOR UPDATE SKIP LOCKED) and lease them, in
 * one statement written as
 *
 *   with due as materialized (select <key> ... order by ... limit n for update skip locked)
 *   update <table> set <lease> from due where <key matches> returning ...
 *
 * PostgreSQL's statistics lag a burst: rows queued a moment ago look like a handful until
 * autovacuum analyzes the table. Two plans it then chose:
 * - With the pick written `where key in (select ... limit n)`, it counted one due row and made a
 *   nested-loop semi join that ran the pick again for every due row: 20,000 queued mails cost
 *   one claim 81 s. Materialized, the pick runs once, whatever the counts.
 * - It fetched every due row and sorted them, at every claim: a backlog of 40,000 deliveries
 *   cost 33–40 ms of PostgreSQL a claim (0.18 ms reading the queue's index in its order).
 *   `inIndexOrder` rules sorting out for the claim (the queue must have an index in the pick's
 *   order), and JIT compilation with it, which a ruled-out plan's cost would otherwise trigger
 *   (180 ms). The event deliveries, whose backlogs are the large ones, use it; the mail queue
 *   and the in-flight sweeps, polled idle several times a second, do not.
 *
 * On a PostgreSQL server the settings and the claim go as one message, two statements with the
 * parameters written into the text (drizzle's inlineParams; only when every value is plain, as
 * the claims' timestamps, numbers and ids are: plainParameters). PostgreSQL runs them as one
 * implicit transaction and plans each statement when it reaches it, so the settings (local to
 * that transaction) rule the claim's plan. As a transaction of its own (BEGIN, the settings,
 * the claim, COMMIT) it took four round trips and held a pooled connection across them. (The
 * claim's time under load, 12–17 ms for 128 rows while the worker sends, is mostly PostgreSQL's
 * work and the event loop's queue: one message instead of four did not change the delivery row;
 * docs/decisions.md.) PGlite, in process and one statement a query, runs the transaction.
 */
export const CLAIM_PLANNER_SETTINGS = sql`select set_config('enable_sort', 'off', true), set_config('jit', 'off', true)`;

const dialect = new PgDialect();

/**
 * Whether every parameter of `statement` may be written into its text as it is: numbers,
 * booleans, nulls, and strings of letters, digits and the punctuation of timestamps and ids.
 * Anything else (a quote, a backslash, a semicolon) keeps its claim on the parameterized path.
 */
function plainParameters(statement: SQL): boolean {
  return dialect
    .sqlToQuery(statement)
    .params.every((p) => p === null || typeof p === 'number' || typeof p === 'boolean' || (typeof p === 'string' && /^[0-9A-Za-z_.:+ -]*$/.test(p)));
}

type Rows = Array<Record<string, unknown>>;

/** Runs a claim statement (see above); answers its rows as PostgreSQL sent them. */
export async function runClaim(db: Db, statement: SQL, options: { inIndexOrder?: boolean } = {}): Promise<Rows> {
  return (await runClaimWith(db, statement, undefined, options)).rows;
}

/**
 * Runs a claim statement, and `read` (a plain query the worker needs at each claim, e.g. whether
 * anything waits to be dispatched) before it. On a PostgreSQL server the read goes in the
 * claim's message when the claim goes as one (every parameter of both plain): one write and one
 * round trip instead of two, which is what a worker's round costs most on a busy machine (each
 * write to the database's socket: 0.2–0.4 ms of the event loop, docs/decisions.md). Otherwise
 * the read runs first, on its own. Answers the claim's rows and the read's.
 */
export async function runClaimWith(db: Db, statement: SQL, read: SQL | undefined, options: { inIndexOrder?: boolean } = {}): Promise<{ rows: Rows; read: Rows }> {
  type Result = { rows: Rows };
  if (options.inIndexOrder && runsStatementsTogether(db) && plainParameters(statement) && (!read || plainParameters(read))) {
    // One result per statement: the read's first, the claim's last.
    const message = read ? sql`${read}; ${CLAIM_PLANNER_SETTINGS}; ${statement}` : sql`${CLAIM_PLANNER_SETTINGS}; ${statement}`;
    const results = (await db.execute(message.inlineParams())) as unknown as Result[];
    return { rows: results[results.length - 1]!.rows, read: read ? results[0]!.rows : [] };
  }
  const readRows = read ? ((await db.execute(read)) as unknown as Result).rows : [];
  if (!options.inIndexOrder) return { rows: ((await db.execute(statement)) as unknown as Result).rows, read: readRows };
  const result = await db.transaction(async (tx) => {
    await tx.execute(CLAIM_PLANNER_SETTINGS);
    return tx.execute(statement);
  });
  return { rows: (result as unknown as Result).rows, read: readRows };
}

/**
 * Rows of `table` as PostgreSQL sent them (`returning t.*`, column names) mapped to drizzle's
 * row objects (property names, each value through its column's decoder), as drizzle's own
 * `returning()` would answer them.
 */
export function tableRows<T extends PgTable>(table: T, rows: Array<Record<string, unknown>>): Array<T['$inferSelect']> {
  const columns = Object.entries(getTableColumns(table));
  return rows.map((raw) => {
    const row: Record<string, unknown> = {};
    for (const [key, column] of columns) {
      const value = raw[column.name];
      row[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
    }
    return row as T['$inferSelect'];
  });
}
