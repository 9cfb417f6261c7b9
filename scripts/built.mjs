// Whether the built service (dist) is at least as new as its sources and the lock file, and the
// node arguments that run an entry point of src: the built file when it is fresh (as .ci/run
// and `npm start` leave it), otherwise the TypeScript through tsx, so an edit is never run stale.
// Used by `npm run cli` (scripts/cli.mjs) and by the tests that start real processes.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function newest(dir) {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

let sourcesNewest;

/** True when the built file of `entry` (builtPath) exists and is no older than anything under src and the lock file (BASTION_RUN_SOURCES=1: never). */
export function builtIsFresh(entry = 'src/cli.ts', options = {}) {
  if (process.env.BASTION_RUN_SOURCES === '1') return false;
  const built = builtPath(entry, options);
  if (!existsSync(built)) return false;
  sourcesNewest ??= Math.max(newest(join(root, 'src')), statSync(join(root, 'package-lock.json')).mtimeMs);
  return statSync(built).mtimeMs >= sourcesNewest;
}

/** The entry points scripts/bundle.mjs bundles (dist/bundle/<name>.mjs). */
const BUNDLED = { 'src/main.ts': 'main', 'src/cli.ts': 'cli' };

/**
 * The built file of `entry`: the bundle for the service and the CLI (what npm start and
 * npm run cli run), dist/<entry>.js for the others, and for all with `{ bundle: false }`.
 */
export function builtPath(entry, options = {}) {
  const bundled = options.bundle !== false && BUNDLED[entry];
  return bundled ? join(root, 'dist', 'bundle', `${bundled}.mjs`) : join(root, 'dist', entry.replace(/\.ts$/, '.js'));
}

/**
 * The arguments after `node` that run `entry` (a path under src, e.g. 'src/main.ts'): its built
 * file when fresh (`{ bundle: false }`: dist/src even for a bundled entry), else src through tsx.
 */
export function nodeArgsFor(entry, options = {}) {
  return builtIsFresh(entry, options) ? [builtPath(entry, options)] : ['--import', 'tsx', join(root, entry)];
}
