import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { openDatabase } from '../../src/platform/db/client.js';
import { runMigrations } from '../../src/platform/db/migrate.js';
import { pgliteTemplateIsCurrent, writePgliteTemplate } from '../../src/platform/db/pglite-template.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A dump of a freshly migrated embedded database ('' on PostgreSQL). */
    pgliteImage: string;
  }
}

/**
 * On the embedded database, every harness would start PGlite from nothing and migrate it (about
 * 5 s on the 2-core machines); instead one migrated image is built here, once per run, and each
 * harness loads it (about 1.5 s). The migrations still run at each start (they find nothing to do).
 */
export default async function setup(project: TestProject): Promise<() => void> {
  // `vitest run test/unit` (npm run test:unit): pure functions only, no database to prepare.
  if (unitOnly(project)) {
    project.provide('pgliteImage', '');
    return () => undefined;
  }
  // A fresh DATA_DIR (the CLI tests, the services the process tests start) copies PGlite's
  // template, as `npm run build` makes it; without it each one runs initdb (about 900 MiB and
  // tens of seconds). `.ci/run` builds first; a local run without a build makes it here, once.
  if (!pgliteTemplateIsCurrent()) await writePgliteTemplate();
  if (process.env.DATABASE_URL) {
    project.provide('pgliteImage', '');
    return () => undefined;
  }
  const dir = mkdtempSync(join(tmpdir(), 'bastion-pglite-image-'));
  // Opened as a new DATA_DIR is (a copy of the template, which holds the product's migrations):
  // in memory from nothing it ran initdb first, about 5 s before any test file could start.
  const database = await openDatabase({ dataDir: join(dir, 'data') });
  // Tests run with sandboxes on: the image holds the schema `sandbox` too.
  await runMigrations(database, { sandboxes: true });
  const image = await database.pglite!.dumpDataDir('none');
  await database.close();
  rmSync(join(dir, 'data'), { recursive: true, force: true });
  const file = join(dir, 'migrated.tar');
  writeFileSync(file, Buffer.from(await image.arrayBuffer()));
  project.provide('pgliteImage', file);
  return () => rmSync(dir, { recursive: true, force: true });
}

/**
 * True when every file filter of the run names test/unit (the unit layer: no harness, no
 * database). Vitest keeps the CLI's filters on `filenamePattern` (not in its public types); when
 * it is absent the setup runs as for any other run, only slower.
 */
function unitOnly(project: TestProject): boolean {
  const filters = (project.vitest as unknown as { filenamePattern?: string[] }).filenamePattern;
  return !!filters && filters.length > 0 && filters.every((filter) => /(^|[\\/])test[\\/]unit([\\/]|$)/.test(filter));
}
