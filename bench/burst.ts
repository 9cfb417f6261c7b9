import { alternatePaced, medianP99Ratio, type PacedSide } from './alternate.js';
import type { LoadBackend, LoadResult, LoadSpec, PacedResult } from './load/index.js';
import type { BurstResult } from './report.js';

/** Rounds of the burst measurement: each one a paced segment alone, then one during logins. */
export const BURST_ROUNDS = 5;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A server doing the least the same pair of loads needs: the read and the logins it answers. */
export interface BurstBound {
  baseUrl: string;
  me: LoadSpec & { rate: number };
  login: Omit<LoadSpec, 'durationSec'>;
}

/**
 * GET /users/me (or any read) at a steady `me.rate`, alone and during a login burst, in
 * `rounds` alternating segments that share `me.durationSec` between them (alternatePaced: both
 * figures see the same background of this machine). Each side's latencies are pooled into one
 * p50 and p99; the goal's figure is the median of the rounds' ratios (medianP99Ratio).
 *
 * With `bound`, each round also runs the bound's read alone and during its own logins, right
 * after the service's pair: how far the same read is pushed by the same hashing load on this
 * machine at that moment, with nothing of the service (bench/ceiling-server.ts).
 *
 * A login segment starts the login load, waits a second for the password pool and its queue to
 * fill, then measures; after it, a second for the queued logins to finish before the next
 * segment alone. A warm-up round of `warmupSec` a side comes first and is not counted: the
 * first logins of a process start the password workers and compile the login path, which is
 * start-up, not the burst.
 */
export async function measureBurst(
  baseUrl: string,
  backend: LoadBackend,
  me: LoadSpec & { rate: number },
  login: Omit<LoadSpec, 'durationSec'>,
  options: { warmupSec: number; rounds?: number; log?: (line: string) => void; bound?: BurstBound },
): Promise<Omit<BurstResult, 'rate'>> {
  const rounds = options.rounds ?? BURST_ROUNDS;
  const bound = options.bound;
  const logins: LoadResult[] = [];
  const boundLogins: LoadResult[] = [];
  const during =
    (target: string, load: Omit<LoadSpec, 'durationSec'>, kept: LoadResult[]) =>
    async (segment: () => Promise<PacedResult>, seconds: number, round: number) => {
      const loginLoad = backend.run(target, { ...load, durationSec: Math.ceil(seconds) + 2 });
      await sleep(1_000);
      const busy = await segment();
      const logged = await loginLoad;
      if (round >= 0) kept.push(logged);
      await sleep(1_000);
      return busy;
    };
  const sides: PacedSide[] = [
    { spec: me },
    { spec: me, around: during(baseUrl, login, logins) },
    ...(bound ? [{ spec: bound.me, baseUrl: bound.baseUrl }, { spec: bound.me, baseUrl: bound.baseUrl, around: during(bound.baseUrl, bound.login, boundLogins) }] : []),
  ];
  const { pooled, rounds: byRound } = await alternatePaced(baseUrl, sides, {
    durationSec: me.durationSec,
    rounds,
    warmupSec: options.warmupSec,
    log: (round, [quiet, busy, boundQuiet, boundBusy]) =>
      options.log?.(
        `    round ${round + 1}: p99 alone ${quiet!.p99Ms.toFixed(1)} ms, during ${busy!.p99Ms.toFixed(1)} ms (${logins.at(-1)!.rps.toFixed(0)} logins/s)` +
          (boundQuiet && boundBusy ? `; the bound ${boundQuiet.p99Ms.toFixed(1)} and ${boundBusy.p99Ms.toFixed(1)} ms (${boundLogins.at(-1)!.rps.toFixed(0)} logins/s)` : ''),
      ),
  });
  const [alone, duringBurst, boundAlone, boundDuring] = pooled;
  return {
    rounds,
    alone: alone!,
    duringBurst: duringBurst!,
    login: sumLoads(logins),
    roundRatios: byRound.map(([quiet, busy]) => busy!.p99Ms / quiet!.p99Ms),
    medianRatio: medianP99Ratio(byRound, 0, 1),
    ...(bound && boundAlone && boundDuring
      ? {
          bound: {
            alone: boundAlone,
            duringBurst: boundDuring,
            login: sumLoads(boundLogins),
            roundRatios: byRound.map((round) => round[3]!.p99Ms / round[2]!.p99Ms),
            medianRatio: medianP99Ratio(byRound, 2, 3),
          },
        }
      : {}),
  };
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
