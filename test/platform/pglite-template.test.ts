import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { describe, expect, it } from 'vitest';
import { openDatabase, PGLITE_START_PARAMS } from '../../src/platform/db/client.js';
import { copyTemplateInto, writePgliteTemplate } from '../../src/platform/db/pglite-template.js';
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

    const used = join(root, 'used');
    mkdirSync(used);
    writeFileSync(join(used, 'something'), '');
    expect(copyTemplateInto(used, template)).toBe(false);
    expect(readdirSync(used)).toEqual(['something']);
    expect(copyTemplateInto(join(root, 'fresh'), join(root, 'no-template'))).toBe(false);
  });
});
