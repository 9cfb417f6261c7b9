import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../src/platform/db/migrate.js';

/** The node flags of `npm start` (package.json), so the bench runs the service as it is run. */
function startFlags(root: string): string[] {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: { start: string } };
  return pkg.scripts.start.split(/\s+/).filter((word) => word.startsWith('--'));
}

function int(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer`);
  return value;
}

/** Everything `npm run bench` can be told, from the environment (README "Benchmark"). */
export interface BenchSettings {
  /** Seconds of each measurement, after a warm-up of `warmupSec` on the same load. */
  durationSec: number;
  warmupSec: number;
  /** Concurrent connections of the plain reads (the ceilings use the same). */
  connections: number;
  /** Users of the large tenant and of the small one. */
  bigUsers: number;
  smallUsers: number;
  /** Users with a live session whose access tokens the bearer routes rotate through. */
  tokenUsers: number;
  /** Refresh tokens minted for POST /auth/refresh (each is used once). */
  refreshTokens: number;
  /** Operations in flight of the value-moving rows (closed loop), and of their ceilings. */
  inFlight: number;
  /** Seeded KYC attempts, each decided once by the decision-webhook row. */
  webhooks: number;
  /** The service's LOG_LEVEL (production: info) and of the ceiling server. */
  logLevel: string;
  tool: string | undefined;
  /** Routes to run (names as in the table); empty = all. */
  only: string[];
  /** Node flags of the service and the ceiling server: those of `npm start`, then BENCH_NODE_FLAGS. */
  nodeFlags: string[];
  /** Write a V8 CPU profile of the service into this directory. */
  cpuProfDir: string | undefined;
  servicePort: number;
  ceilingPort: number;
  dataDir: string;
  resultsFile: string;
}

export function readSettings(): BenchSettings {
  const root = packageRoot();
  return {
    durationSec: int('BENCH_DURATION', 10),
    warmupSec: int('BENCH_WARMUP', 3),
    connections: int('BENCH_CONNECTIONS', 32),
    bigUsers: int('BENCH_USERS', 1_000_000),
    smallUsers: int('BENCH_SMALL_USERS', 10_000),
    tokenUsers: int('BENCH_TOKEN_USERS', 1_000),
    refreshTokens: int('BENCH_REFRESH_TOKENS', 40_000),
    inFlight: int('BENCH_IN_FLIGHT', 16),
    webhooks: int('BENCH_WEBHOOKS', 20_000),
    logLevel: process.env.BENCH_LOG_LEVEL || 'info',
    tool: process.env.BENCH_TOOL || undefined,
    only: (process.env.BENCH_ONLY ?? '').split(',').map((s) => s.trim()).filter(Boolean),
    nodeFlags: [...startFlags(root), ...(process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean)],
    cpuProfDir: process.env.BENCH_CPU_PROF ? join(root, 'bench', '.data', 'profiles') : undefined,
    servicePort: int('BENCH_PORT', 3900),
    ceilingPort: int('BENCH_CEILING_PORT', 3901),
    dataDir: join(root, 'bench', '.data'),
    // A run of some rows only (BENCH_ONLY) does not overwrite the whole run's results.
    resultsFile: process.env.BENCH_RESULTS || join(root, 'bench', process.env.BENCH_ONLY ? '.data' : '', 'results.md'),
  };
}
