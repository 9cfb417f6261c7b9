import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';

const SAMPLE_MS = 200;

/** VmRSS or VmHWM of a process, in MiB (Linux /proc). */
function readStatus(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return kb / 1024;
}

export interface ServerProcess {
  name: string;
  pid: number;
  baseUrl: string;
  /** Peak RSS (MiB) since the last call (sampled every 200 ms), then starts a new window. */
  takePeakRss(): number;
  /** Peak RSS over the process's whole life (VmHWM). */
  lifetimePeakRss(): number;
  /** Log lines at level error or fatal, and the last few of them. */
  errors(): { count: number; last: string[] };
  stop(): Promise<void>;
}

/**
 * Starts `node [nodeArgs] script` with `env`, waits until GET /health answers. Its stdout (the
 * pino log, one JSON line per entry) is read here, as a log shipper would, and only error
 * lines are kept.
 */
export async function startServer(options: {
  name: string;
  script: string;
  env: Record<string, string | undefined>;
  port: number;
  nodeArgs?: string[];
}): Promise<ServerProcess> {
  const child: ChildProcess = spawn(process.execPath, [...(options.nodeArgs ?? []), options.script], {
    env: { PATH: process.env.PATH, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const pid = child.pid!;
  let errorCount = 0;
  const lastErrors: string[] = [];
  let stderr = '';
  let partial = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    const text = partial + chunk;
    const end = text.lastIndexOf('\n');
    partial = text.slice(end + 1);
    if (!/"level":[56]0/.test(text)) return;
    for (const line of text.slice(0, end).split('\n')) {
      if (/"level":[56]0/.test(line)) {
        errorCount++;
        lastErrors.push(line.slice(0, 500));
        if (lastErrors.length > 5) lastErrors.shift();
      }
    }
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-4000)));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));

  let peak = 0;
  const sampler = setInterval(() => {
    try {
      peak = Math.max(peak, readStatus(pid, 'VmRSS'));
    } catch {
      // exited
    }
  }, SAMPLE_MS);

  const baseUrl = `http://127.0.0.1:${options.port}`;
  const deadline = Date.now() + 60_000;
  let exitCode: number | null | undefined;
  void exited.then((code) => (exitCode = code));
  for (;;) {
    if (exitCode !== undefined) throw new Error(`${options.name} exited with ${exitCode} at start:\n${stderr}`);
    if (Date.now() > deadline) throw new Error(`${options.name} did not answer /health within 60 s`);
    try {
      if ((await fetch(`${baseUrl}/health`)).ok) break;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }

  return {
    name: options.name,
    pid,
    baseUrl,
    takePeakRss() {
      const value = Math.max(peak, readStatus(pid, 'VmRSS'));
      peak = 0;
      return value;
    },
    lifetimePeakRss: () => readStatus(pid, 'VmHWM'),
    errors: () => ({ count: errorCount, last: [...lastErrors] }),
    async stop() {
      clearInterval(sampler);
      if (exitCode === undefined) child.kill('SIGTERM');
      const code = await Promise.race([exited, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 20_000))]);
      if (code === 'timeout') {
        child.kill('SIGKILL');
        await exited;
      }
    },
  };
}
