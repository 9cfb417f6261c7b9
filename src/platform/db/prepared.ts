import type { DbOrTx } from './client.js';

/** What drizzle's query builders offer for placeholders: `sql.placeholder(name)` filled at execute. */
interface Preparable<R> {
  execute(placeholderValues?: Record<string, unknown>): Promise<R>;
  prepare(name: string): { execute(placeholderValues?: Record<string, unknown>): Promise<R> };
}

/**
 * A hot query built once, with `sql.placeholder`s for its values. Called on the database
 * itself it runs as a named prepared statement (drizzle builds the SQL once; PostgreSQL parses
 * and plans it once per connection). Called inside a transaction, the same built query runs on
 * the transaction's connection (building a select costs drizzle 0.1–0.2 ms of CPU, several
 * times what the statement costs PostgreSQL); a session whose connection cannot be found
 * builds it on the transaction instead. `name` must be unique in the process.
 */
export function preparedQuery<R, P extends Record<string, unknown>>(
  db: DbOrTx,
  name: string,
  build: (q: DbOrTx) => Preparable<R>,
): (params: P, tx?: DbOrTx) => Promise<R> {
  let prepared: ReturnType<Preparable<R>['prepare']> | undefined;
  return (params, tx = db) => {
    prepared ??= build(db).prepare(name);
    if (tx === db) return prepared.execute(params);
    const client = sessionClient(tx);
    if (!client) return build(tx).execute(params);
    // drizzle's prepared queries (node-postgres and PGlite alike) run on their `client`: the same
    // query, with the transaction's connection in its place.
    return Object.assign(Object.create(prepared) as typeof prepared, { client }).execute(params);
  };
}

/** The connection a drizzle transaction runs on (its session's `client`), if it has one. */
function sessionClient(tx: DbOrTx): object | undefined {
  const session = (tx as unknown as { session?: { client?: unknown } }).session;
  const client = session?.client;
  return client && typeof client === 'object' && typeof (client as { query?: unknown }).query === 'function' ? client : undefined;
}
