import pg from 'pg';
import type { Database } from '../../src/platform/db/client.js';

/**
 * The statements the database driver is handed while `fn` runs, each as the text it was given
 * (BEGIN and COMMIT count; a transaction of the embedded database counts as one more,
 * 'transaction'). On PostgreSQL every client's queries are seen, the pool's and a checked-out
 * client's alike: each is one message to the server.
 */
export async function statementsDuring(database: Database, fn: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  const text = (q: unknown) => (typeof q === 'string' ? q : String((q as { text?: string })?.text ?? '?'));
  if (database.pglite) {
    const lite = database.pglite as unknown as Record<'query' | 'exec' | 'transaction', (...a: unknown[]) => unknown>;
    const originals = { query: lite.query, exec: lite.exec, transaction: lite.transaction };
    for (const name of ['query', 'exec', 'transaction'] as const) {
      lite[name] = function (this: unknown, ...args: unknown[]) {
        seen.push(name === 'transaction' ? 'transaction' : text(args[0]));
        return originals[name].apply(this, args);
      };
    }
    try {
      await fn();
    } finally {
      Object.assign(lite, originals);
    }
    return seen;
  }
  const original = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    seen.push(text(args[0]));
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof original;
  try {
    await fn();
  } finally {
    pg.Client.prototype.query = original;
  }
  return seen;
}
