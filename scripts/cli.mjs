// `npm run cli -- ...`: the operator CLI from a checkout. The built CLI (the bundle, dist/bundle/cli.mjs)
// when it is at least as new as src and the lock file, started in this process; otherwise src
// through tsx, so an edit is never run stale (scripts/built.mjs). The built one starts in a fraction of the time.
import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { builtIsFresh, builtPath, nodeArgsFor } from './built.mjs';

const args = process.argv.slice(2);
if (builtIsFresh('src/cli.ts')) {
  const { runCli } = await import(pathToFileURL(builtPath('src/cli.ts')).href);
  const code = await runCli(args, { env: process.env, stdout: (text) => process.stdout.write(text), stderr: (text) => process.stderr.write(text) });
  if (code !== 0) process.exit(code);
} else {
  const result = spawnSync(process.execPath, [...nodeArgsFor('src/cli.ts'), ...args], { stdio: 'inherit' });
  process.exit(result.status ?? 1);
}
