import { poolPaced, runPaced, type LoadSpec, type PacedResult } from './load/index.js';

/** One side of an alternating comparison: a paced load, and what must run around its segment. */
export interface PacedSide {
  spec: LoadSpec & { rate: number };
  /** The server this side loads, when not the comparison's own (a bound's server, say). */
  baseUrl?: string;
  /**
   * Runs the side's segment (`segment()`) inside whatever must be going on during it (a login
   * load started first, say). `round` is -1 for the warm-up round, whose figures are not kept.
   */
  around?: (segment: () => Promise<PacedResult>, seconds: number, round: number) => Promise<PacedResult>;
}

/** The sides' pooled results, and each counted round's results (in the sides' order). */
export interface Alternated {
  pooled: PacedResult[];
  rounds: PacedResult[][];
}

/**
 * The median over rounds of side `b`'s p99 over side `a`'s in the same round. This machine
 * stalls now and then for 15 to 100 ms, whatever runs; a pooled p99 is set by whichever side's
 * segments such a stall hits, and a stall hits a round, not a side. Compared round by round, a
 * stall changes one round's ratio; the median of the rounds' ratios is the typical round.
 */
export function medianP99Ratio(rounds: PacedResult[][], a: number, b: number): number {
  const ratios = rounds.map((round) => round[b]!.p99Ms / round[a]!.p99Ms).sort((x, y) => x - y);
  const mid = Math.floor(ratios.length / 2);
  return ratios.length % 2 ? ratios[mid]! : (ratios[mid - 1]! + ratios[mid]!) / 2;
}

/**
 * Paced loads on the same server, side by side in `rounds` alternating rounds that share
 * `durationSec` between them, after a warm-up round of `warmupSec` a side that is not counted:
 * this machine's background (other tenants of the host, timers, GC) changes from one second to
 * the next, and alternating lets every side see the same background instead of a run each at
 * different times. Each side's segments are pooled into one result (its latencies together),
 * and each round's results are kept for comparisons round by round (medianP99Ratio).
 */
export async function alternatePaced(
  baseUrl: string,
  sides: PacedSide[],
  options: { durationSec: number; rounds: number; warmupSec: number; log?: (round: number, results: PacedResult[]) => void },
): Promise<Alternated> {
  const kept: PacedResult[][] = sides.map(() => []);
  const rounds: PacedResult[][] = [];
  const round = async (round: number, seconds: number) => {
    const results: PacedResult[] = [];
    for (const side of sides) {
      const segment = () => runPaced(side.baseUrl ?? baseUrl, { ...side.spec, durationSec: seconds });
      results.push(side.around ? await side.around(segment, seconds, round) : await segment());
    }
    if (round < 0) return;
    results.forEach((r, i) => kept[i]!.push(r));
    rounds.push(results);
    options.log?.(round, results);
  };
  await round(-1, options.warmupSec || 1);
  for (let r = 0; r < options.rounds; r++) await round(r, options.durationSec / options.rounds);
  return { pooled: kept.map((runs) => poolPaced(runs)), rounds };
}
