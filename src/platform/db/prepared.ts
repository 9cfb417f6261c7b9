import type { DbOrTx } from './client.js';

/** What drizzle's query builders offer for placeholders: `sql.placeholder(name)` filled at execute. */
interface Preparable<R> {
  execute(placeholderValues?: Record<string, unknown>): Promise<R>;
  prepare(name: string): { execute(placeholderValues?: Record<string, unknown>): Promise<R> };
}

/**
 * A hot query built once, with `sql.placeholder`s for its values. Called on the database
 * itself it runs as a named prepared statement (drizzle builds the SQL once; PostgreSQL parses
 * and plans it once per connection); called inside a transaction it is built on that
 * transaction, so it runs in it. `name` must be unique in the process.
 */
export function preparedQuery<R, P extends Record<string, unknown>>(
  db: DbOrTx,
  name: string,
  build: (q: DbOrTx) => Preparable<R>,
): (params: P, tx?: DbOrTx) => Promise<R> {
  let prepared: ReturnType<Preparable<R>['prepare']> | undefined;
  return (params, tx = db) => {
    if (tx !== db) return build(tx).execute(params);
    prepared ??= build(db).prepare(name);
    return prepared.execute(params);
  };
}
