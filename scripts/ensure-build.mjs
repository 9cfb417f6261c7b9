// `npm start` runs the built service; this builds first when dist is missing or older than src.
import { execSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function newest(dir) {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

const sources = () => Math.max(newest('src'), statSync('package-lock.json').mtimeMs);
const built = 'dist/src/main.js';
if (!existsSync(built) || sources() > statSync(built).mtimeMs) {
  process.stdout.write('Building Bastion...\n');
  execSync('npx tsc -p tsconfig.build.json', { stdio: 'inherit' });
}
// What npm start runs: the service as one bundle (scripts/bundle.mjs), made from dist/src.
const bundle = 'dist/bundle/main.mjs';
if (!existsSync(bundle) || statSync(built).mtimeMs > statSync(bundle).mtimeMs) execSync('node scripts/bundle.mjs', { stdio: 'inherit' });
// The operator console (static files under /console): built when missing or older than its source.
// Without it the service still starts; /console answers 503 saying how to build it.
const consoleIndex = 'dist/console/index.html';
const vite = join('node_modules', '.bin', 'vite');
if (!existsSync(consoleIndex) || newest('console') > statSync(consoleIndex).mtimeMs) {
  try {
    if (!existsSync(vite)) throw new Error('vite is not installed');
    process.stdout.write('Building the operator console...\n');
    execSync(`${vite} build --config console/vite.config.ts`, { stdio: 'inherit' });
  } catch {
    process.stdout.write('The operator console could not be built (the dev dependencies are not installed?); /console answers 503 until `npm run build`.\n');
  }
}
// The embedded database's template (a fresh DATA_DIR starts from it: no initdb in the service).
execSync('node dist/src/platform/db/make-pglite-template.js', { stdio: 'inherit' });
