import { cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { openDatabase, type Database } from '../../src/platform/db/client.js';
import { migrationsFolder } from '../../src/platform/db/migrate.js';
import { migratedImage } from './harness.js';
import { ownPostgresDatabase } from './own-database.js';

/**
 * A copy (under `work`) of the migrations folder up to, not including, the first migration whose
 * SQL contains `marker`: a database migrated with it is the schema just before that migration,
 * for tests of a migration's data step.
 */
export function migrationsBefore(work: string, marker: string): string {
  const journal = JSON.parse(readFileSync(join(migrationsFolder, 'meta', '_journal.json'), 'utf8')) as { entries: { tag: string }[] };
  const at = journal.entries.findIndex((e) => readFileSync(join(migrationsFolder, `${e.tag}.sql`), 'utf8').includes(marker));
  expect(at, `no migration contains ${marker}`).toBeGreaterThan(0);
  const folder = join(work, 'drizzle');
  cpSync(migrationsFolder, folder, { recursive: true });
  for (const e of journal.entries.slice(at)) rmSync(join(folder, `${e.tag}.sql`));
  writeFileSync(join(folder, 'meta', '_journal.json'), JSON.stringify({ ...journal, entries: journal.entries.slice(0, at) }));
  expect(readdirSync(folder).filter((f) => f.endsWith('.sql'))).toHaveLength(at);
  return folder;
}

/** A database of a test's own at the schema just before a migration, on the pass's database kind. */
export interface DatabaseBefore {
  database: Database;
  /** One statement with `$n` parameters, on the embedded database or PostgreSQL alike. */
  run(statement: string, params?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
  close(): Promise<void>;
}

/**
 * A new database migrated to just before the first migration whose SQL contains `marker`
 * (migrationsBefore): on the PostgreSQL pass a PostgreSQL database of its own on the suite's
 * server, dropped by close(); otherwise an embedded one in memory. A migration's data step is
 * then tested on each kind of database the service runs on, as each pass's harnesses are.
 */
export async function databaseBefore(work: string, marker: string): Promise<DatabaseBefore> {
  const folder = migrationsBefore(work, marker);
  const suiteUrl = process.env.DATABASE_URL;
  if (suiteUrl) {
    const own = await ownPostgresDatabase(suiteUrl, 'migration');
    const database = await openDatabase({ databaseUrl: own.url, poolSize: 2 });
    await migratePg(drizzlePg(database.pool!), { migrationsFolder: folder });
    return {
      database,
      run: (statement, params = []) => database.pool!.query(statement, params),
      close: async () => {
        await database.close();
        await own.drop();
      },
    };
  }
  const database = await emptyEmbeddedDatabase();
  await migratePglite(drizzlePglite(database.pglite!), { migrationsFolder: folder });
  return {
    database,
    run: (statement, params = []) => database.pglite!.query<Record<string, unknown>>(statement, params),
    close: () => database.close(),
  };
}

/**
 * An embedded database in memory with nothing of Bastion's in it, as initdb leaves one: the
 * suite's migrated image (global-setup.ts) with its schemas dropped, which costs about a second
 * against initdb's three to five.
 */
export async function emptyEmbeddedDatabase(): Promise<Database> {
  const database = await openDatabase({ image: migratedImage() });
  await database.pglite!.exec('DROP SCHEMA drizzle CASCADE; DROP SCHEMA sandbox CASCADE; DROP SCHEMA public CASCADE; CREATE SCHEMA public;');
  return database;
}
