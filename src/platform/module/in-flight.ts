import { and, isNull, lte, or, sql, type SQL } from 'drizzle-orm';
import { integer, timestamp, type PgColumn, type PgTable } from 'drizzle-orm/pg-core';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { Db, DbOrTx } from '../db/client.js';
import { runClaim, tableRows } from '../db/claim.js';
import { createPoller } from './poller.js';

/**
 * Durable in-flight work: value moves (and anything else that must finish after a crash) keep
 * their state in a row, and that row carries a lease. Whoever drives the row forward (the
 * request that created it, or a sweeper in any instance) holds the lease; a row whose lease has
 * passed is claimed by the next sweep (FOR UPDATE SKIP LOCKED: several instances share the work,
 * none waits for another) and resumed from the state it is in. Nothing lives in memory only: a
 * process killed at any step leaves a row that another pass picks up once its lease ends.
 *
 * The lease avoids duplicate work; it is not what makes a step happen once. Each flow makes its
 * steps safe to repeat (a signed transaction stored before it is sent is sent again, never
 * re-signed; status changes are compare-and-set), so a stalled holder overtaken by a sweeper
 * does no harm.
 */

/** The two columns every in-flight table carries. */
export const leaseColumns = () => ({
  /** Until when the row's current holder works on it; null or past: free to claim. */
  leaseUntil: timestamp('lease_until', { withTimezone: true, mode: 'date' }),
  /** How many times the row was claimed (by a request or a sweep). */
  attempts: integer('attempts').notNull().default(0),
});

export interface InFlightTable<T extends PgTable> {
  /** A name for logs (`custody-a sandbox transaction`). */
  name: string;
  table: T;
  /** The row's unique key column (an id unique on its own). */
  id: PgColumn;
  leaseUntil: PgColumn;
  /** Counted at every claim (absent: the flow counts its own attempts). */
  attempts?: PgColumn;
  /** Which rows are still in flight (not final). */
  inFlight: SQL;
  /** Oldest first: e.g. the updated_at column. */
  order: PgColumn;
}

type RowOf<T extends PgTable> = T['$inferSelect'];

/** The lease queries over one table. */
export function leasedRows<T extends PgTable>(spec: InFlightTable<T>) {
  const leaseKey = keyOf(spec.table, spec.leaseUntil);
  /** The claim's statement (run by runClaim): the pick in the table's `order`, once. */
  function claimStatement(now: Date, leaseUntil: Date, limit: number): SQL {
    const attempts = spec.attempts ? sql`, ${sql.identifier(spec.attempts.name)} = ${spec.attempts} + 1` : sql``;
    return sql`
      with due as materialized (
        select ${spec.id} as key from ${spec.table}
        where ${and(spec.inFlight, or(isNull(spec.leaseUntil), lte(spec.leaseUntil, now)))}
        order by ${spec.order}
        limit ${limit}
        for update skip locked
      )
      update ${spec.table} set ${sql.identifier(spec.leaseUntil.name)} = ${leaseUntil.toISOString()}::timestamptz${attempts}
      from due
      where ${spec.id} = due.key and ${spec.inFlight}
      returning ${spec.table}.*`;
  }
  return {
    /**
     * Claims up to `limit` in-flight rows whose lease has passed: locks them (skipping rows
     * another transaction holds), counts an attempt and leases them until `leaseUntil`. One
     * statement (runClaim: an UPDATE of the rows its pick locks), so a sweep that finds nothing, which
     * is nearly every sweep, is one round trip rather than BEGIN, SELECT and COMMIT.
     */
    async claim(db: Db, now: Date, leaseUntil: Date, limit: number): Promise<RowOf<T>[]> {
      return tableRows(spec.table, await runClaim(db, claimStatement(now, leaseUntil, limit))) as RowOf<T>[];
    },
    claimStatement,
    /** Keeps (or takes) the lease of one row until `until`, whoever held it. */
    async hold(db: DbOrTx, id: unknown, until: Date): Promise<void> {
      await db
        .update(spec.table)
        .set({ [leaseKey]: until } as never)
        .where(sql`${spec.id} = ${id}`);
    },
  };
}

function keyOf(table: PgTable, column: PgColumn): string {
  for (const [key, value] of Object.entries(table)) if (value === column) return key;
  throw new Error(`column ${column.name} is not a column of the table`);
}

/** A flow the sweeper drives: its rows' lease queries and one resume step. */
export interface InFlightFlow<Row = unknown> {
  name: string;
  claim(now: Date, leaseUntil: Date, limit: number): Promise<Row[]>;
  /**
   * Drives one claimed row forward, as far as it goes within its lease (it may hold the lease
   * longer while it waits). A row left in flight is claimed again when its lease passes.
   */
  resume(row: Row): Promise<void>;
  /** How many rows are in flight now (metrics). */
  pending?(): Promise<number>;
}

/** One flow over a table: claims through the lease columns, resumes with `resume`. */
export function inFlightFlow<T extends PgTable>(db: Db, spec: InFlightTable<T>, resume: (row: RowOf<T>) => Promise<void>): InFlightFlow<RowOf<T>> & { hold(id: unknown, until: Date, on?: DbOrTx): Promise<void> } {
  const rows = leasedRows(spec);
  return {
    name: spec.name,
    claim: (now, leaseUntil, limit) => rows.claim(db, now, leaseUntil, limit),
    resume,
    hold: (id, until, on = db) => rows.hold(on, id, until),
    async pending() {
      const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(spec.table as PgTable).where(spec.inFlight);
      return row?.n ?? 0;
    },
  };
}

export interface InFlightSweeper {
  /** Sweeps now, then every `intervalMs`, on an unref'd timer. */
  start(): void;
  /** Stops sweeping and waits for the sweep under way. */
  stop(): Promise<void>;
  /** One pass over every flow: the number of rows it resumed. */
  sweepOnce(): Promise<number>;
  /** How long a claim holds a row. */
  readonly leaseMs: number;
}

/**
 * Sweeps every registered flow: claims the rows whose lease has passed (left by a crash, a
 * request that stopped waiting, or a stalled instance) and resumes each. One sweeper per
 * process; the lease keeps instances apart.
 */
export function createInFlightSweeper(options: { clock: Clock; logger: Logger; flows: InFlightFlow<never>[] | (() => InFlightFlow<never>[]); intervalMs?: number; leaseMs?: number; batchSize?: number }): InFlightSweeper {
  const { clock } = options;
  const logger = options.logger.child({ component: 'in-flight-sweeper' });
  const intervalMs = options.intervalMs ?? 1000;
  const leaseMs = options.leaseMs ?? 5000;
  const batchSize = options.batchSize ?? 20;
  const flows = () => (typeof options.flows === 'function' ? options.flows() : options.flows);
  async function pass(): Promise<number> {
    let total = 0;
    for (const flow of flows() as InFlightFlow<unknown>[]) {
      let rows: unknown[];
      try {
        const now = clock.now();
        rows = await flow.claim(now, new Date(now.getTime() + leaseMs), batchSize);
      } catch (error) {
        logger.warn({ err: error, flow: flow.name }, 'in-flight claim failed');
        continue;
      }
      total += rows.length;
      await Promise.all(
        rows.map((row) =>
          flow.resume(row).catch((error: unknown) => {
            // The row keeps its lease and comes back when it passes.
            logger.warn({ err: error, flow: flow.name }, 'in-flight resume failed; it is resumed again when its lease passes');
          }),
        ),
      );
      if (rows.length > 0) logger.info({ flow: flow.name, count: rows.length }, 'resumed in-flight work');
    }
    return total;
  }

  const poller = createPoller({ run: pass, intervalMs, onError: (error) => logger.warn({ err: error }, 'in-flight sweep failed') });
  return { leaseMs, start: poller.start, stop: poller.stop, sweepOnce: poller.runOnce };
}

/**
 * A test-only crash point: with BASTION_CRASH_AT=<step>[,<step>...] (refused in production, see
 * config), the process kills itself with SIGKILL when it reaches `step`, as a power cut would.
 * With BASTION_CRASH_GRACE_MS the work that reached the step stops there for good and the kill
 * comes that much later, so answers already on their way (a request the background work
 * started after) reach the client first: "killed after the answer, at this step".
 */
export function crashPoint(step: string): Promise<void> {
  const at = process.env.BASTION_CRASH_AT;
  if (at === undefined || at === '' || process.env.NODE_ENV === 'production' || !at.split(',').includes(step)) return Promise.resolve();
  const grace = Number(process.env.BASTION_CRASH_GRACE_MS ?? 0);
  if (!(grace > 0)) process.kill(process.pid, 'SIGKILL');
  setTimeout(() => process.kill(process.pid, 'SIGKILL'), grace);
  return new Promise<void>(() => undefined);
}
