import { cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { migrationsFolder } from '../../src/platform/db/migrate.js';

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
