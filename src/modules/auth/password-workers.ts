import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** CPU niceness of the hashing threads (Linux; 0 = same as the event loop, 19 = lowest). */
export const PASSWORD_WORKER_NICENESS = 19;

export type PasswordJob =
  | { op: 'hash'; password: string; options: object }
  | { op: 'verify'; hash: string; password: string; options: object };

export interface PasswordWorkers {
  /** Runs a job on an idle worker; the caller keeps at most `size` jobs running. */
  run(job: PasswordJob): Promise<string | boolean>;
  close(): Promise<void>;
}

// Plain CommonJS evaluated in the worker (no build step, same under tsx, vitest and dist):
// lower this thread's priority, then hash or verify synchronously, one job at a time.
const workerSource = (argon2Path: string, niceness: number) => `
const { parentPort } = require('node:worker_threads');
try {
  const tid = Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop());
  require('node:os').setPriority(tid, ${niceness});
} catch {}
const argon2 = require(${JSON.stringify(argon2Path)});
parentPort.on('message', ({ id, job }) => {
  try {
    const result = job.op === 'hash' ? argon2.hashSync(job.password, job.options) : argon2.verifySync(job.hash, job.password, job.options);
    parentPort.postMessage({ id, result });
  } catch (error) {
    parentPort.postMessage({ id, error: String((error && error.message) || error) });
  }
});
`;

/**
 * argon2id off the event loop on `size` worker threads of lowered CPU priority: when logins
 * and other requests compete for the cores, the event loop (and PostgreSQL) run first and
 * hashing takes what is left, so a login burst does not stall every other route; with the
 * CPU otherwise idle, hashing runs at full speed. Workers start on first use.
 */
export function createPasswordWorkers(size: number, niceness = PASSWORD_WORKER_NICENESS): PasswordWorkers {
  const source = workerSource(createRequire(import.meta.url).resolve('@node-rs/argon2'), niceness);
  const idle: Worker[] = [];
  const all = new Set<Worker>();
  const pending = new Map<number, { worker: Worker; resolve: (v: string | boolean) => void; reject: (e: Error) => void }>();
  let nextId = 0;

  function spawn(): Worker {
    const worker = new Worker(source, { eval: true });
    worker.unref();
    all.add(worker);
    worker.on('message', ({ id, result, error }: { id: number; result?: string | boolean; error?: string }) => {
      const job = pending.get(id);
      if (!job) return;
      pending.delete(id);
      idle.push(worker);
      if (error !== undefined) job.reject(new Error(error));
      else job.resolve(result!);
    });
    const fail = (error: Error) => {
      all.delete(worker);
      const at = idle.indexOf(worker);
      if (at >= 0) idle.splice(at, 1);
      for (const [id, job] of pending) {
        if (job.worker !== worker) continue;
        pending.delete(id);
        job.reject(error);
      }
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`password worker exited (${code})`)));
    return worker;
  }

  return {
    run(job) {
      const worker = idle.pop() ?? (all.size < size ? spawn() : undefined);
      if (!worker) return Promise.reject(new Error('password workers: more jobs than workers'));
      const id = nextId++;
      return new Promise((resolve, reject) => {
        pending.set(id, { worker, resolve, reject });
        worker.postMessage({ id, job });
      });
    },
    async close() {
      await Promise.all([...all].map((worker) => worker.terminate()));
    },
  };
}
