import { hash, verify } from '@node-rs/argon2';
import { ARGON2_OPTIONS, PASSWORD_POOL_CONCURRENCY } from '../src/modules/auth/passwords.js';

export interface Argon2Ceiling {
  concurrency: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/**
 * Raw argon2id verifications per second: the service's parameters (ARGON2_OPTIONS) and its
 * pool's concurrency (as many verifications in flight as the password pool allows, on
 * libuv's thread pool as in the service), nothing else running. Warm-up first.
 */
export async function measureArgon2(warmupSec: number, durationSec: number): Promise<Argon2Ceiling> {
  const password = 'bench: a long enough passphrase';
  const stored = await hash(password, ARGON2_OPTIONS);
  const concurrency = PASSWORD_POOL_CONCURRENCY;
  const latencies: number[] = [];
  let measuring = false;
  let stopAt = Date.now() + warmupSec * 1000;
  const loop = async () => {
    while (Date.now() < stopAt) {
      const started = performance.now();
      if (!(await verify(stored, password, ARGON2_OPTIONS))) throw new Error('argon2 verify failed');
      if (measuring) latencies.push(performance.now() - started);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
  measuring = true;
  const started = performance.now();
  stopAt = Date.now() + durationSec * 1000;
  await Promise.all(Array.from({ length: concurrency }, loop));
  const elapsedSec = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { concurrency, rps: latencies.length / elapsedSec, p50Ms: percentile(latencies, 50), p99Ms: percentile(latencies, 99) };
}
