import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { describe, expect, it } from 'vitest';
import { openDatabase, PGLITE_START_PARAMS, type Database } from '../../src/platform/db/client.js';
import { copyTemplateInto, pgliteTemplateIsCurrent, writePgliteTemplate } from '../../src/platform/db/pglite-template.js';
import { runMigrations } from '../../src/platform/db/migrate.js';
import { usingPostgres } from '../helpers/harness.js';

describe.skipIf(usingPostgres)('the embedded database (memory)', () => {
  it('runs with a 16 MB buffer pool (it lives in the WebAssembly heap; PGlite gives 128 MB)', async () => {
    const database = await openDatabase({});
    try {
      const result = await database.pglite!.query<{ shared_buffers: string }>('show shared_buffers');
      expect(result.rows[0]!.shared_buffers).toBe('16MB');
    } finally {
      await database.close();
    }
  });

  it('a new data directory is a copy of the template (no initdb in the service); an existing one is left alone', async () => {
    const root = mkdtempSync(join(tmpdir(), 'bastion-template-'));
    const template = await writePgliteTemplate(join(root, 'template'));
    expect(existsSync(join(template, 'PG_VERSION'))).toBe(true);

    const fresh = join(root, 'fresh');
    mkdirSync(fresh);
    expect(copyTemplateInto(fresh, template)).toBe(true);
    expect(readdirSync(fresh).sort()).toEqual(readdirSync(template).sort());
    const pglite = new PGlite(fresh, { startParams: PGLITE_START_PARAMS });
    await pglite.query('create table t (x int)');
    await pglite.query('insert into t values (1)');
    await pglite.close();
    const reopened = new PGlite(fresh, { startParams: PGLITE_START_PARAMS });
    expect((await reopened.query<{ x: number }>('select x from t')).rows).toEqual([{ x: 1 }]);
    await reopened.close();

    // It holds the product's migrations (not the sandboxes' schema): a new DATA_DIR's first
    // start applies none of them, and the sandboxes' only when they are on.
    expect(pgliteTemplateIsCurrent(template)).toBe(true);
    const journal = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'drizzle', 'meta', '_journal.json'), 'utf8')) as { entries: unknown[] };
    const applied = async (db: PGlite) => (await db.query<{ n: number }>('select count(*)::int as n from drizzle.__drizzle_migrations')).rows[0]!.n;
    const copy = join(root, 'migrated');
    mkdirSync(copy);
    copyTemplateInto(copy, template);
    const inTemplate = new PGlite(copy, { startParams: PGLITE_START_PARAMS });
    expect(await applied(inTemplate)).toBe(journal.entries.length);
    expect((await inTemplate.query(`select 1 from information_schema.schemata where schema_name = 'sandbox'`)).rows).toEqual([]);
    // The start's migrations find nothing of the product's to do.
    await runMigrations({ pglite: inTemplate } as unknown as Database, { sandboxes: false });
    expect(await applied(inTemplate)).toBe(journal.entries.length);
    await inTemplate.close();
    // A marker naming other migrations (a checkout with newer ones) makes it stale.
    writeFileSync(`${template}.migrations`, '0000_older\n');
    expect(pgliteTemplateIsCurrent(template)).toBe(false);

    const used = join(root, 'used');
    mkdirSync(used);
    writeFileSync(join(used, 'something'), '');
    expect(copyTemplateInto(used, template)).toBe(false);
    expect(readdirSync(used)).toEqual(['something']);
    expect(copyTemplateInto(join(root, 'fresh'), join(root, 'no-template'))).toBe(false);
  });
});
