import { autocannonBackend } from './autocannon.js';
import type { LoadBackend } from './types.js';
import { findWrk, wrkBackend } from './wrk.js';

export type { LoadBackend, LoadResult, LoadSpec, RequestSpec } from './types.js';
export { poolPaced, runPaced, type PacedResult } from './paced.js';

/**
 * The load generator: BENCH_TOOL=wrk|autocannon, or by default wrk when it is installed or
 * installable (apt-get), else autocannon. Steady-rate (open-loop) loads are paced.ts's.
 */
export function chooseBackend(wanted: string | undefined, log: (line: string) => void): LoadBackend {
  if (wanted === 'autocannon') return autocannonBackend;
  if (findWrk(log)) return wrkBackend;
  if (wanted === 'wrk') throw new Error('BENCH_TOOL=wrk but wrk is not available');
  log('falling back to autocannon (in this process; it competes with the service for the 2 cores)');
  return autocannonBackend;
}
