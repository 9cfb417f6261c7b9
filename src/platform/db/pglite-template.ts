import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import { packageRoot } from './package-root.js';

/**
 * A new embedded database starts as a copy of a template: a data directory PGlite's initdb made
 * at build time (`npm run build`, or `npm start`'s first build). Without it, PGlite runs initdb
 * in the service process on the first start: a second PostgreSQL instance and an in-memory dump
 * of the new directory, about 900 MiB of peak RSS (README, "Memory"). Copied as files, it costs
 * the service no memory (PGlite's own loadDataDir would hold the archive, about 90 MiB).
 *
 * The template holds the product's migrations too (drizzle/, not the sandboxes' schema, which
 * the service adds at start when sandboxes are on): a first start or a first CLI command in a
 * new DATA_DIR applies none of them (about 6 s of CPU on the 2-core machines). The migrations
 * it holds are named beside it (`<template>.migrations`, the journal's last tag); a build with
 * newer migrations makes it again. A template older than the checkout is still correct: the
 * migrator applies what it lacks, as on any database.
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

/** The product's migrations folder and the tag of its last migration. */
function productMigrations(): { folder: string; last: string } {
  const folder = join(packageRoot(), 'drizzle');
  const journal = JSON.parse(readFileSync(join(folder, 'meta', '_journal.json'), 'utf8')) as { entries: Array<{ tag: string }> };
  return { folder, last: journal.entries.at(-1)?.tag ?? '' };
}

const markerOf = (dir: string) => `${dir}.migrations`;

/** True when the template exists and holds every migration of this checkout. */
export function pgliteTemplateIsCurrent(dir = pgliteTemplateDir()): boolean {
  if (!existsSync(join(dir, 'PG_VERSION')) || !existsSync(markerOf(dir))) return false;
  return readFileSync(markerOf(dir), 'utf8').trim() === productMigrations().last;
}

/**
 * Makes the template: initdb into a new directory, the product's migrations, a clean shut
 * down; then names the migrations it holds. Returns its path.
 */
export async function writePgliteTemplate(dir = pgliteTemplateDir()): Promise<string> {
  const building = `${dir}.tmp`;
  rmSync(building, { recursive: true, force: true });
  mkdirSync(dirname(dir), { recursive: true });
  const { folder, last } = productMigrations();
  const pglite = new PGlite(building);
  await pglite.waitReady;
  await migrate(drizzle(pglite), { migrationsFolder: folder });
  await pglite.close();
  rmSync(markerOf(dir), { force: true });
  rmSync(dir, { recursive: true, force: true });
  renameSync(building, dir);
  writeFileSync(markerOf(dir), `${last}\n`);
  return dir;
}
