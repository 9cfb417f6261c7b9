import { hash, verify } from '@node-rs/argon2';
import { ARGON2_OPTIONS, createPasswordHasher, PASSWORD_POOL_CONCURRENCY } from '../src/modules/auth/passwords.js';
import { PASSWORD_WORKER_NICENESS } from '../src/modules/auth/password-workers.js';

export interface Argon2Ceiling {
  label: string;
  concurrency: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  /** CPU of this process (all threads) per verification, ms. */
  cpuMs: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Runs `concurrency` loops of `once` for the warm-up, then measures for `durationSec`. */
async function loops(once: () => Promise<void>, concurrency: number, warmupSec: number, durationSec: number) {
  const latencies: number[] = [];
  let measuring = false;
  let cpu = process.cpuUsage();
  let stopAt = Date.now() + warmupSec * 1000;
  const loop = async () => {
    while (Date.now() < stopAt) {
      const started = performance.now();
      await once();
      if (measuring) latencies.push(performance.now() - started);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
  measuring = true;
  cpu = process.cpuUsage();
  const started = performance.now();
  stopAt = Date.now() + durationSec * 1000;
  await Promise.all(Array.from({ length: concurrency }, loop));
  const elapsedSec = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  latencies.sort((a, b) => a - b);
  return {
    rps: latencies.length / elapsedSec,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    cpuMs: (used.user + used.system) / 1000 / Math.max(1, latencies.length),
  };
}

const PASSWORD = 'bench: a long enough passphrase';

/**
 * Raw argon2id verifications per second, nothing else running, the service's parameters
 * (ARGON2_OPTIONS) and concurrency (PASSWORD_POOL_CONCURRENCY in flight):
 * - `pool`: through the service's own password pool (its worker threads at lowered priority):
 *   the ceiling login is compared with;
 * - `plain`: @node-rs/argon2's async verify on libuv's thread pool at normal priority, to show
 *   what the pool itself costs.
 */
export async function measureArgon2(kind: 'pool' | 'plain', warmupSec: number, durationSec: number): Promise<Argon2Ceiling> {
  const stored = await hash(PASSWORD, ARGON2_OPTIONS);
  const concurrency = PASSWORD_POOL_CONCURRENCY;
  if (kind === 'plain') {
    const once = async () => {
      if (!(await verify(stored, PASSWORD, ARGON2_OPTIONS))) throw new Error('argon2 verify failed');
    };
    return { label: `raw argon2id verify, libuv threads (${concurrency} in flight)`, concurrency, ...(await loops(once, concurrency, warmupSec, durationSec)) };
  }
  const hasher = createPasswordHasher();
  try {
    const once = async () => {
      if (!(await hasher.verify(stored, PASSWORD))) throw new Error('argon2 verify failed');
    };
    const label = `raw argon2id verify, the service's password pool (${concurrency} workers, nice ${PASSWORD_WORKER_NICENESS})`;
    return { label, concurrency, ...(await loops(once, concurrency, warmupSec, durationSec)) };
  } finally {
    await hasher.close();
  }
}
