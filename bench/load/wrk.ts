import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { packageRoot } from '../../src/platform/db/migrate.js';
import type { LoadBackend, LoadResult, LoadSpec, RequestSpec } from './types.js';

const run = promisify(execFile);
const SCRIPT = join(packageRoot(), 'bench', 'load', 'wrk-feed.lua');

function hasWrk(): boolean {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
    return true;
  } catch (error) {
    // wrk --version prints its banner and exits 1; only a missing binary throws ENOENT.
    return (error as NodeJS.ErrnoException).code !== 'ENOENT';
  }
}

/** wrk when it is installed or `apt-get install -y wrk` works; otherwise undefined (use autocannon). */
export function findWrk(log: (line: string) => void): boolean {
  if (hasWrk()) return true;
  log('wrk not found: trying apt-get install -y wrk');
  try {
    execFileSync('apt-get', ['install', '-y', '-q', 'wrk'], { stdio: 'ignore', timeout: 120_000 });
  } catch {
    log('could not install wrk');
    return false;
  }
  return hasWrk();
}

function line(r: RequestSpec): string {
  const fields = [r.method, r.path, r.body ?? ''];
  for (const [name, value] of Object.entries(r.headers)) fields.push(name, value);
  if (fields.some((f) => /[\t\n]/.test(f))) throw new Error('wrk requests must not contain tabs or line breaks');
  return fields.join('\t');
}

interface WrkSummary {
  requests: number;
  durationUs: number;
  p50Us: number;
  p99Us: number;
  status: number;
  connect: number;
  read: number;
  write: number;
  timeout: number;
  exhausted: number;
}

/** wrk, a separate C process: far cheaper per request than a load generator in Node. */
export const wrkBackend: LoadBackend = {
  name: 'wrk',
  async run(baseUrl: string, spec: LoadSpec): Promise<LoadResult> {
    const dir = mkdtempSync(join(tmpdir(), 'bastion-wrk-'));
    try {
      const file = join(dir, 'requests.tsv');
      writeFileSync(file, spec.requests.map(line).join('\n') + '\n');
      const threads = Math.min(2, spec.connections);
      const { stdout } = await run(
        'wrk',
        ['-t', String(threads), '-c', String(spec.connections), '-d', `${spec.durationSec}s`, '--timeout', '10s', '-s', SCRIPT, baseUrl],
        { env: { ...process.env, BENCH_WRK_FILE: file, BENCH_WRK_ONCE: spec.once ? '1' : '0', BENCH_WRK_THREADS: String(threads) }, maxBuffer: 1 << 20 },
      );
      const json = /^BENCH_RESULT (\{.*\})$/m.exec(stdout)?.[1];
      if (!json) throw new Error(`wrk printed no result:\n${stdout}`);
      const s = JSON.parse(json) as WrkSummary;
      const durationSec = s.durationUs / 1e6;
      return {
        tool: 'wrk',
        requests: s.requests,
        durationSec,
        rps: s.requests / durationSec,
        p50Ms: s.p50Us / 1000,
        p99Ms: s.p99Us / 1000,
        failures: s.status + s.connect + s.read + s.write + s.timeout,
        exhausted: s.exhausted > 0,
      };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
