import { sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import type { DbOrTx } from './client.js';
import { executeHot } from './prepared.js';

/**
 * Runs several writes (inserts or updates built by the repos that own their tables, not yet
 * executed) as one SQL statement, each a data-modifying CTE: `WITH w0 AS (...), w1 AS (...)
 * SELECT 1`. A single statement is atomic on its own, so they commit together or not at all,
 * in one round trip and without BEGIN/COMMIT (login: five round trips became two). The writes
 * share one snapshot: none may read what another writes. A statement of a shape that recurs runs
 * prepared (executeHot).
 */
export async function writeTogether(db: DbOrTx, writes: SQLWrapper[]): Promise<void> {
  if (writes.length === 0) return;
  await executeHot(db, sql`WITH ${withClauses(writes)} SELECT 1`);
}

/**
 * The same, with `main` (an insert, update or delete with RETURNING) as the statement the
 * writes are the CTEs of: answers main's rows as PostgreSQL sent them (column names, not
 * field names). For a write whose outcome the caller needs (a conditional update), in the same
 * round trip as the writes that go with it.
 */
export async function writeTogetherReturning(db: DbOrTx, writes: SQLWrapper[], main: SQLWrapper): Promise<Array<Record<string, unknown>>> {
  if (writes.length === 0) return executeHot(db, main.getSQL());
  return executeHot(db, sql`WITH ${withClauses(writes)} ${main.getSQL()}`);
}

const withClauses = (writes: SQLWrapper[]): SQL => sql.join(writes.map((write, i) => sql`${sql.raw(`w${i}`)} AS (${write.getSQL()})`), sql`, `);
