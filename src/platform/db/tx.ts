import { is } from 'drizzle-orm';
import { PgTransaction } from 'drizzle-orm/pg-core';
import type { Db, DbOrTx, Tx } from './client.js';

/** Runs a function in one database transaction; services get this instead of the database. */
export type RunInTx = <T>(fn: (tx: Tx) => Promise<T>) => Promise<T>;

export function txRunner(db: Db): RunInTx {
  return (fn) => db.transaction(fn);
}

/** Whether `db` is an open transaction (node-postgres and PGlite alike), not the database itself. */
export function isTransaction(db: DbOrTx): db is Tx {
  return is(db, PgTransaction);
}
