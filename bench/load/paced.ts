import { Pool } from 'undici';
import type { LoadResult, LoadSpec } from './types.js';

/** A paced run's result, with every request's latency (ms, sorted) so that runs can be pooled. */
export interface PacedResult extends LoadResult {
  latencies: Float64Array;
}

/**
 * An open-loop load at a constant rate (the wrk2 model), in this process: request i is due at
 * start + i / rate, whether or not earlier ones have been answered, and its latency runs from
 * that due time to the end of its response. A stall of the server (or all connections busy)
 * shows in full in every request due during it, so no coordinated-omission correction is
 * needed and none is applied.
 *
 * autocannon's `overallRate` is not this: each connection sends its share of a second's
 * requests back to back when the second starts and then waits for the next second, so its
 * "paced" load is a burst at the start of every second; and its histogram adds synthetic
 * samples for every response slower than its expected interval rounded up to 1 ms, so one slow
 * response weighs as dozens. docs/decisions.md, "The login burst, measured at a steady pace".
 */
export async function runPaced(baseUrl: string, spec: LoadSpec & { rate: number }): Promise<PacedResult> {
  const total = Math.max(1, Math.round(spec.rate * spec.durationSec));
  const interval = 1_000 / spec.rate;
  const latencies = new Float64Array(total);
  // A response not started or not finished within 10 s fails (autocannon's and wrk's timeout here).
  const pool = new Pool(baseUrl, { connections: spec.connections, pipelining: 1, keepAliveTimeout: 30_000, headersTimeout: 10_000, bodyTimeout: 10_000 });
  let sent = 0;
  let done = 0;
  let failures = 0;
  const start = performance.now() + 5;
  try {
    await new Promise<void>((resolve) => {
      const send = (i: number) => {
        const due = start + i * interval;
        const r = spec.requests[i % spec.requests.length]!;
        pool
          .request({ method: r.method, path: r.path, headers: r.headers, body: r.body })
          .then(
            async (res) => {
              await res.body.dump();
              if (res.statusCode >= 400) failures++;
            },
            () => {
              failures++;
            },
          )
          .finally(() => {
            latencies[i] = performance.now() - due;
            if (++done === total) resolve();
          });
      };
      // Each timer tick sends every request due by now: a late tick sends late, and that counts.
      const tick = () => {
        const due = Math.min(total, Math.floor((performance.now() - start) / interval) + 1);
        while (sent < due) send(sent++);
        if (sent < total) setTimeout(tick, 1);
      };
      setTimeout(tick, 5);
    });
  } finally {
    await pool.close();
  }
  return summarize([latencies], (performance.now() - start) / 1_000, failures);
}

/** Several paced runs as one: their latencies pooled, their durations and failures added. */
export function poolPaced(runs: PacedResult[]): PacedResult {
  return summarize(
    runs.map((r) => r.latencies),
    runs.reduce((sum, r) => sum + r.durationSec, 0),
    runs.reduce((sum, r) => sum + r.failures, 0),
  );
}

function summarize(parts: Float64Array[], durationSec: number, failures: number): PacedResult {
  const latencies = new Float64Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    latencies.set(p, at);
    at += p.length;
  }
  latencies.sort();
  const q = (f: number) => latencies[Math.min(latencies.length - 1, Math.floor(f * latencies.length))] ?? 0;
  return { tool: 'paced', requests: latencies.length, durationSec, rps: latencies.length / durationSec, p50Ms: q(0.5), p99Ms: q(0.99), failures, exhausted: false, latencies };
}
