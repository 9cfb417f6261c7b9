// `npm run cli -- ...`: the operator CLI from a checkout. The built CLI (dist) when it is at
// least as new as src and the lock file, started in this process; otherwise src through tsx,
// so an edit is never run stale. The built one starts in a fraction of the time.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const built = join(root, 'dist', 'src', 'cli.js');

function newest(dir) {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

const fresh = existsSync(built) && statSync(built).mtimeMs >= Math.max(newest(join(root, 'src')), statSync(join(root, 'package-lock.json')).mtimeMs);
const args = process.argv.slice(2);
if (fresh) {
  const { runCli } = await import(pathToFileURL(built).href);
  const code = await runCli(args, { env: process.env, stdout: (text) => process.stdout.write(text), stderr: (text) => process.stderr.write(text) });
  if (code !== 0) process.exit(code);
} else {
  const result = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'src', 'cli.ts'), ...args], { stdio: 'inherit' });
  process.exit(result.status ?? 1);
}
