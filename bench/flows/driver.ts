// The closed-loop driver of the value-moving rows: `concurrency` workers, each running one
// operation after another (a registration, a payment to validation, a transfer to CONFIRMED,
// an upload) for a warm-up and then for the measurement. These paths are bound by latency
// (a ledger closes every second), so the figures are completed operations per second with N
// in flight and the latency of each to its final state; requests/s of a load generator would
// say nothing here.
import { processCpuMs } from '../machine.js';

export interface FlowResult {
  /** Operations completed (to their final state) during the measurement. */
  completed: number;
  durationSec: number;
  /** Completed operations per second. */
  rps: number;
  p50Ms: number;
  p99Ms: number;
  /** Operations that threw (wrong status, not final, refused). */
  failures: number;
  /** Bytes moved by the completed operations (uploads), for MB/s. */
  bytes: number;
  /** The first failure's message, to say what went wrong. */
  firstError?: string;
}

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/**
 * One operation of worker `worker` (0 .. concurrency-1): resolves when the operation reached
 * its final state, with the bytes it moved (0 if not counted); throws on a failure.
 */
export type FlowOp = (worker: number) => Promise<number | void>;

/** Runs `op` in `concurrency` loops: `warmupSec` unmeasured, then `durationSec` measured. */
export async function closedLoop(op: FlowOp, options: { concurrency: number; warmupSec: number; durationSec: number }): Promise<FlowResult> {
  const latencies: number[] = [];
  let measuring = false;
  let failures = 0;
  let bytes = 0;
  let firstError: string | undefined;
  let stopAt = Date.now() + options.warmupSec * 1000;
  const loop = async (worker: number) => {
    while (Date.now() < stopAt) {
      const started = performance.now();
      try {
        const moved = await op(worker);
        if (measuring) {
          latencies.push(performance.now() - started);
          bytes += moved ?? 0;
        }
      } catch (error) {
        if (measuring) failures++;
        firstError ??= error instanceof Error ? error.message : String(error);
        // A failing path must not spin: wait a little before the next try.
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  };
  const workers = Array.from({ length: options.concurrency }, (_, i) => i);
  if (options.warmupSec > 0) await Promise.all(workers.map(loop));
  measuring = true;
  const started = performance.now();
  stopAt = Date.now() + options.durationSec * 1000;
  await Promise.all(workers.map(loop));
  const durationSec = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    completed: latencies.length,
    durationSec,
    rps: latencies.length / durationSec,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    failures,
    bytes,
    ...(firstError ? { firstError } : {}),
  };
}

/** CPU (ms) a process and the database's backends used while `work` ran. */
export async function withCpu<T>(pids: { server?: number; db?: () => number }, work: () => Promise<T>): Promise<{ value: T; serverMs: number; dbMs: number | undefined }> {
  const serverBefore = pids.server ? processCpuMs(pids.server) : 0;
  const dbBefore = pids.db ? pids.db() : 0;
  const value = await work();
  return {
    value,
    serverMs: pids.server ? processCpuMs(pids.server) - serverBefore : 0,
    dbMs: pids.db ? pids.db() - dbBefore : undefined,
  };
}

/**
 * Waits until the process has been nearly idle (under 5% of one core) for a second, at most
 * `maxSec`: the flows leave work behind them (webhooks to deliver, sweepers, in-flight rows)
 * that would otherwise be counted in the next row. Answers the seconds waited and whether it
 * settled.
 */
export async function settle(pid: number, maxSec = 30): Promise<{ waitedSec: number; settled: boolean }> {
  const started = Date.now();
  let last = processCpuMs(pid);
  while (Date.now() - started < maxSec * 1000) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const now = processCpuMs(pid);
    const busyMs = now - last;
    last = now;
    if (busyMs < 50) return { waitedSec: (Date.now() - started) / 1000, settled: true };
  }
  return { waitedSec: maxSec, settled: false };
}
