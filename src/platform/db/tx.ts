import type { Db, Tx } from './client.js';

/** Runs a function in one database transaction; services get this instead of the database. */
export type RunInTx = <T>(fn: (tx: Tx) => Promise<T>) => Promise<T>;

export function txRunner(db: Db): RunInTx {
  return (fn) => db.transaction(fn);
}
