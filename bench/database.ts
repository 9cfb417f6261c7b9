import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';

/** The local server the bench creates its database on (BENCH_PG_SERVER overrides). */
const server = () => process.env.BENCH_PG_SERVER || 'postgres://postgres@127.0.0.1:5432';
export const BENCH_DATABASE = 'bastion_bench';

export interface BenchDatabase {
  kind: 'postgres' | 'pglite';
  /** DATABASE_URL for the service and the ceiling server; undefined = PGlite under dataDir. */
  url: string | undefined;
  /** Where it is, for the report (no credentials). */
  label: string;
  /** The PostgreSQL database's name (its backends' CPU is counted); undefined for PGlite. */
  name: string | undefined;
}

async function reachable(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

function label(url: string): string {
  const u = new URL(url);
  return `PostgreSQL ${u.host}${u.pathname}`;
}

/**
 * DATABASE_URL when set (used as it is: the bench adds its own tenants); otherwise a fresh
 * `bastion_bench` database on the local server, dropped and created anew; when no server
 * answers, the embedded PGlite in a fresh directory, with a warning.
 */
export async function prepareDatabase(dataDir: string, log: (line: string) => void): Promise<BenchDatabase> {
  const given = process.env.DATABASE_URL;
  if (given) {
    if (!(await reachable(given))) throw new Error('DATABASE_URL is set but the database does not answer');
    return { kind: 'postgres', url: given, label: label(given), name: new URL(given).pathname.slice(1) || 'postgres' };
  }
  const admin = `${server()}/postgres`;
  if (await reachable(admin)) {
    const client = new pg.Client({ connectionString: admin });
    await client.connect();
    try {
      await client.query(`DROP DATABASE IF EXISTS ${BENCH_DATABASE} WITH (FORCE)`);
      await client.query(`CREATE DATABASE ${BENCH_DATABASE}`);
    } finally {
      await client.end();
    }
    const url = `${server()}/${BENCH_DATABASE}`;
    log(`fresh database ${BENCH_DATABASE} created`);
    return { kind: 'postgres', url, label: label(url), name: BENCH_DATABASE };
  }
  log(`WARNING: PostgreSQL at ${new URL(admin).host} is unreachable; falling back to the embedded PGlite database.`);
  log('WARNING: PGlite runs inside the service process (one connection): the figures are not those of a server deployment.');
  const dir = join(dataDir, 'pgdata');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dataDir, { recursive: true });
  return { kind: 'pglite', url: undefined, label: 'embedded PGlite', name: undefined };
}
