import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { packageRoot } from './package-root.js';

/**
 * A new embedded database starts as a copy of a template: a data directory PGlite's initdb made
 * at build time (`npm run build`, or `npm start`'s first build). Without it, PGlite runs initdb
 * in the service process on the first start: a second PostgreSQL instance and an in-memory dump
 * of the new directory, about 900 MiB of peak RSS (README, "Memory"). Copied as files, it costs
 * the service no memory (PGlite's own loadDataDir would hold the archive, about 90 MiB).
 */

function pgliteVersion(): string {
  const manifest = join(packageRoot(), 'node_modules', '@electric-sql', 'pglite', 'package.json');
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
}

/** The template of the installed PGlite (its catalog must match the engine's). */
export function pgliteTemplateDir(): string {
  return join(packageRoot(), 'dist', 'pglite-template', `pglite-${pgliteVersion()}`);
}

/**
 * Fills a new (empty) data directory from the template; false when the directory is not new
 * or there is no template (PGlite then runs initdb itself).
 */
export function copyTemplateInto(dir: string, template = pgliteTemplateDir()): boolean {
  if (readdirSync(dir).length > 0 || !existsSync(join(template, 'PG_VERSION'))) return false;
  cpSync(template, dir, { recursive: true });
  return true;
}

/** Makes the template (initdb into a new directory, cleanly shut down); returns its path. */
export async function writePgliteTemplate(dir = pgliteTemplateDir()): Promise<string> {
  const building = `${dir}.tmp`;
  rmSync(building, { recursive: true, force: true });
  mkdirSync(dirname(dir), { recursive: true });
  const pglite = new PGlite(building);
  await pglite.waitReady;
  await pglite.close();
  rmSync(dir, { recursive: true, force: true });
  renameSync(building, dir);
  return dir;
}
