import { poolPaced, runPaced, type LoadBackend, type LoadResult, type LoadSpec, type PacedResult } from './load/index.js';
import type { BurstResult } from './report.js';

/** Rounds of the burst measurement: each one a paced segment alone, then one during logins. */
export const BURST_ROUNDS = 5;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * GET /users/me (or any read) at a steady `me.rate`, alone and during a login burst, in
 * `rounds` alternating segments that share `me.durationSec` between them: this machine's
 * background (other tenants of the host, timers, GC) changes from one second to the next, and
 * alternating lets both figures see the same background instead of ten seconds each at
 * different times. Each segment's latencies are pooled into one p50 and p99 per side.
 *
 * A login segment starts the login load, waits a second for the password pool and its queue to
 * fill, then measures; after it, a second for the queued logins to finish before the next
 * segment alone. A warm-up round of `warmupSec` a side comes first and is not counted.
 */
export async function measureBurst(
  baseUrl: string,
  backend: LoadBackend,
  me: LoadSpec & { rate: number },
  login: Omit<LoadSpec, 'durationSec'>,
  options: { warmupSec: number; rounds?: number; log?: (line: string) => void },
): Promise<Omit<BurstResult, 'rate'>> {
  const rounds = options.rounds ?? BURST_ROUNDS;
  const segmentSec = me.durationSec / rounds;
  const alone: PacedResult[] = [];
  const during: PacedResult[] = [];
  const logins: LoadResult[] = [];
  /** A segment alone, then one during logins; the warm-up's (round -1) are not kept. */
  const round = async (round: number, seconds: number) => {
    const quiet = await runPaced(baseUrl, { ...me, durationSec: seconds });
    const loginLoad = backend.run(baseUrl, { ...login, durationSec: Math.ceil(seconds) + 2 });
    await sleep(1_000);
    const busy = await runPaced(baseUrl, { ...me, durationSec: seconds });
    const logged = await loginLoad;
    if (round >= 0) {
      alone.push(quiet);
      during.push(busy);
      logins.push(logged);
      options.log?.(`    round ${round + 1}: p99 alone ${quiet.p99Ms.toFixed(1)} ms, during ${busy.p99Ms.toFixed(1)} ms (${logged.rps.toFixed(0)} logins/s)`);
    }
    await sleep(1_000);
  };
  // The warm-up runs both sides once: the first logins of a process start the password
  // workers and compile the login path, which is start-up, not the burst.
  await round(-1, options.warmupSec || 1);
  for (let r = 0; r < rounds; r++) await round(r, segmentSec);
  return { rounds, alone: poolPaced(alone), duringBurst: poolPaced(during), login: sumLoads(logins) };
}

/** The login segments as one load: requests and seconds added; p50 and p99 the worst segment's. */
function sumLoads(runs: LoadResult[]): LoadResult {
  const requests = runs.reduce((n, r) => n + r.requests, 0);
  const durationSec = runs.reduce((n, r) => n + r.durationSec, 0);
  return {
    tool: runs[0]!.tool,
    requests,
    durationSec,
    rps: requests / durationSec,
    p50Ms: Math.max(...runs.map((r) => r.p50Ms)),
    p99Ms: Math.max(...runs.map((r) => r.p99Ms)),
    failures: runs.reduce((n, r) => n + r.failures, 0),
    exhausted: runs.some((r) => r.exhausted),
  };
}
