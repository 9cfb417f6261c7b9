// BENCH_PG_STATEMENTS=1: what each row asked of PostgreSQL, from pg_stat_statements. Before a
// row's measurement its counters are reset; after it, the bench's database's statements are
// written to bench/.data/statements.md by total time, with their calls per operation of the
// row. It found the delivered-batch statement that read the whole due index (docs/decisions.md).
// The server must load the module (`shared_preload_libraries = 'pg_stat_statements'`, then a
// restart): a development server's setting, never the service's. Without it the bench says so
// once and measures as usual. Times are PostgreSQL's wall time per statement: under load they
// include waiting for a core, so compare them within a row, not with the CPU columns.
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import pg from 'pg';

export interface StatementCapture {
  /** Zeroes the counters (all databases: the server's, not the bench's alone). */
  reset(): Promise<void>;
  /** Writes the bench database's statements since the reset, `operations` being the row's count. */
  record(label: string, operations: number): Promise<void>;
  close(): Promise<void>;
}

const TOP = 15;

/** A capture on the bench's database when BENCH_PG_STATEMENTS is set and the server has the module loaded. */
export async function statementCapture(databaseUrl: string | undefined, file: string, log: (line: string) => void): Promise<StatementCapture | undefined> {
  if (!process.env.BENCH_PG_STATEMENTS) return undefined;
  if (!databaseUrl) {
    log('  BENCH_PG_STATEMENTS: the embedded database has no pg_stat_statements; not captured');
    return undefined;
  }
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('create extension if not exists pg_stat_statements');
    await client.query('select 1 from pg_stat_statements limit 1');
  } catch (error) {
    log(`  BENCH_PG_STATEMENTS: not captured (${(error as Error).message}); load it with shared_preload_libraries = 'pg_stat_statements' and a restart`);
    await client.end();
    return undefined;
  }
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `# PostgreSQL statements per row (pg_stat_statements, ${new Date().toISOString()})\n\nWall time per statement: under load it includes waiting for a core.\n`);
  return {
    async reset() {
      await client.query('select pg_stat_statements_reset()');
    },
    async record(label, operations) {
      const { rows } = await client.query<{ calls: string; total: number; mean: number; rows: string; query: string }>(
        `select s.calls, s.total_exec_time as total, s.mean_exec_time as mean, s.rows, s.query
         from pg_stat_statements s join pg_database d on d.oid = s.dbid
         where d.datname = current_database() and s.query not like '%pg_stat_statements%'
         order by s.total_exec_time desc`,
      );
      const n = Math.max(1, operations);
      const calls = rows.reduce((sum, r) => sum + Number(r.calls), 0);
      const lines = [
        '',
        `## ${label}`,
        '',
        `${operations} operations; ${(calls / n).toFixed(1)} statements per operation (the top ${Math.min(TOP, rows.length)} of ${rows.length} texts by total time below).`,
        '',
        '| calls per op | mean ms | total ms | rows per call | statement |',
        '|---:|---:|---:|---:|---|',
        ...rows.slice(0, TOP).map((r) => {
          const text = r.query.replace(/\s+/g, ' ').trim().slice(0, 160).replace(/\|/g, '\\|');
          return `| ${(Number(r.calls) / n).toFixed(2)} | ${r.mean.toFixed(3)} | ${r.total.toFixed(0)} | ${(Number(r.rows) / Math.max(1, Number(r.calls))).toFixed(1)} | \`${text}\` |`;
        }),
      ];
      appendFileSync(file, lines.join('\n') + '\n');
    },
    async close() {
      await client.end();
    },
  };
}

let current: StatementCapture | undefined;

/** Starts the run's capture (see above); the rows then call `statements`, which do nothing without one. */
export async function startStatementCapture(databaseUrl: string | undefined, file: string, log: (line: string) => void): Promise<void> {
  current = await statementCapture(databaseUrl, file, log);
  if (current) log(`  PostgreSQL statements per row: ${file}`);
}

export const statements = {
  reset: async (): Promise<void> => {
    await current?.reset();
  },
  record: async (label: string, operations: number): Promise<void> => {
    await current?.record(label, operations);
  },
  close: async (): Promise<void> => {
    await current?.close();
    current = undefined;
  },
};
