import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import pg from 'pg';
import { copyTemplateInto } from './pglite-template.js';
import { maskedUrl } from '../../config.js';

// No schema generic: nothing uses drizzle's relational API (db.query.x), so the platform's
// client knows no module's or sandbox's tables; repos import the tables they use.
export type Db = PgDatabase<PgQueryResultHKT>;
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
/** Repos accept either the database or an open transaction. */
export type DbOrTx = Db | Tx;

export interface Database {
  kind: 'postgres' | 'pglite';
  db: Db;
  ping(): Promise<void>;
  close(): Promise<void>;
  /** Underlying handles, for migrations and benchmarks. */
  pool?: pg.Pool;
  pglite?: PGlite;
}

/** The databases opened over a PostgreSQL server's connections (node-postgres), not PGlite. */
const serverDatabases = new WeakSet<Db>();

/**
 * Whether `db` can run several statements sent as one message (PostgreSQL's simple-query
 * protocol, parameters written into the text): a server's connections can; PGlite's driver
 * prepares every query, one statement each.
 */
export function runsStatementsTogether(db: DbOrTx): boolean {
  return serverDatabases.has(db as Db);
}

export interface DatabaseOptions {
  databaseUrl?: string;
  /** Directory for the embedded database; undefined means in-memory (tests). */
  dataDir?: string;
  poolSize?: number;
  /** In memory only: start from this dump of a data directory (tests start from a migrated image). */
  image?: Blob;
}

/**
 * One line for an operator: the setting, where it points (password masked), the driver's
 * reason, and what to check. e.g. "cannot connect to the database at DATABASE_URL=postgres://
 * app:****@db:5432/bastion (host db, port 5432): connect ECONNREFUSED ...; check ...".
 */
function unreachableMessage(databaseUrl: string, error: unknown): string {
  let where = '';
  try {
    const url = new URL(databaseUrl);
    where = ` (host ${url.hostname || 'localhost'}, port ${url.port || '5432'})`;
  } catch {
    // loadConfig accepted it; a URL it cannot parse is named by the masked form below.
  }
  const reason = (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ').trim();
  return (
    `cannot connect to the database at DATABASE_URL=${maskedUrl(databaseUrl)}${where}: ${reason}. ` +
    'Check that PostgreSQL is running and reachable there from this host (address, port, firewall), ' +
    'and that DATABASE_URL names the right database, user and password'
  );
}

/**
 * The embedded PostgreSQL's settings: PGlite's, with a 16 MB buffer pool instead of 128 MB (it
 * lives in the WebAssembly heap: about 90 MiB less RSS; an embedded database is small).
 */
export const PGLITE_START_PARAMS = [...PGlite.defaultStartParams, '-c', 'shared_buffers=16MB'];

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if (options.databaseUrl) {
    const pool = new pg.Pool({
      connectionString: options.databaseUrl,
      max: options.poolSize ?? 20,
      idleTimeoutMillis: 30_000,
      connectionTimeoutMillis: 5_000,
    });
    // An idle client that errors (server restart) must not crash the process.
    pool.on('error', () => undefined);
    // One connection now, so a database that cannot be reached is named as such at start.
    try {
      await pool.query('select 1');
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw new Error(unreachableMessage(options.databaseUrl, error));
    }
    const db = drizzlePg(pool) as unknown as Db;
    serverDatabases.add(db);
    return {
      kind: 'postgres',
      db,
      pool,
      ping: async () => {
        await pool.query('select 1');
      },
      close: () => pool.end(),
    };
  }
  let pglite: PGlite;
  if (options.dataDir) {
    const dir = join(options.dataDir, 'pgdata');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    // A new data directory starts as a copy of the build's template when there is one (no initdb here).
    copyTemplateInto(dir);
    pglite = new PGlite(dir, { startParams: PGLITE_START_PARAMS });
  } else {
    pglite = new PGlite({ startParams: PGLITE_START_PARAMS, ...(options.image ? { loadDataDir: options.image } : {}) });
  }
  await pglite.waitReady;
  const db = drizzlePglite(pglite) as unknown as Db;
  return {
    kind: 'pglite',
    db,
    pglite,
    ping: async () => {
      await db.execute(sql`select 1`);
    },
    close: () => pglite.close(),
  };
}
