// Measures the service's memory as `npm start` runs it: node --max-old-space-size=512 dist/bundle/main.mjs
// (run `npm run build` first). Starts it on a fresh DATA_DIR (or the one given), samples
// /proc/<pid>/status (VmHWM: peak RSS; VmRSS: now) until it answers /ready, then idles, then
// stops it; the same DATA_DIR may be given again to measure a second start.
//
//   node scripts/measure-rss.mjs [--data-dir DIR] [--idle-seconds 20] [--ready-calls 0]
//   DATABASE_URL=postgres://... node scripts/measure-rss.mjs
//
/* global fetch */
// Prints one JSON line: MiB at the first /health answer, at /ready, after idling, and the peak.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    'data-dir': { type: 'string' },
    'idle-seconds': { type: 'string', default: '20' },
    'ready-calls': { type: 'string', default: '0' },
  },
});
const dataDir = values['data-dir'] ?? mkdtempSync(join(tmpdir(), 'bastion-rss-'));

const freePort = () =>
  new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });

const mib = (kb) => Math.round(kb / 1024);
function status(pid) {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0);
  return { hwm: field('VmHWM'), rss: field('VmRSS') };
}

const port = await freePort();
const started = Date.now();
const child = spawn(process.execPath, ['--max-old-space-size=512', 'dist/bundle/main.mjs'], {
  env: { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
  stdio: ['ignore', 'ignore', 'inherit'],
});
const base = `http://127.0.0.1:${port}`;
const up = async (path) => {
  try {
    return (await fetch(base + path)).status;
  } catch {
    return 0;
  }
};

let health;
while (Date.now() - started < 120_000) {
  if ((await up('/health')) === 200) {
    health = { seconds: (Date.now() - started) / 1000, ...status(child.pid) };
    break;
  }
  await sleep(100);
}
if (!health) throw new Error('the service did not answer /health within 120 s');
const readyStatus = await up('/ready');
const ready = { status: readyStatus, ...status(child.pid) };
for (let i = 0; i < Number(values['ready-calls']); i++) await up('/ready');
await sleep(Number(values['idle-seconds']) * 1000);
const idle = status(child.pid);
child.kill('SIGTERM');
await new Promise((resolve) => child.on('exit', resolve));

process.stdout.write(
  JSON.stringify({
    database: process.env.DATABASE_URL ? 'postgresql' : 'embedded',
    dataDir,
    startSeconds: health.seconds,
    rssAtHealthMiB: mib(health.rss),
    readyStatus,
    rssAtReadyMiB: mib(ready.rss),
    rssIdleMiB: mib(idle.rss),
    peakMiB: mib(idle.hwm),
  }) + '\n',
);
