import { spawn, type ChildProcess } from 'node:child_process';

export interface Started {
  child: ChildProcess;
  /** The words after READY on the line the process printed when it was ready. */
  ready: string[];
  output: () => string;
  exited: Promise<number | null>;
}

/** Starts a TypeScript entry point in its own Node process and waits for its `READY ...` line. */
export async function startProcess(entry: string, env: Record<string, string>, timeoutMs = 60_000): Promise<Started> {
  const child = spawn(process.execPath, ['--import', 'tsx', entry], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code, signal) => resolve(code ?? (signal ? -1 : null))));
  const ready = await new Promise<string[]>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${entry} did not start:\n${output}`)), timeoutMs);
    const onData = (d: Buffer) => {
      output += d.toString();
      const line = output.split('\n').find((l) => l.startsWith('READY'));
      if (line) {
        clearTimeout(timer);
        resolve(line.split(' ').slice(1));
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    child.on('exit', () => {
      clearTimeout(timer);
      reject(new Error(`${entry} exited before it was ready:\n${output}`));
    });
  });
  return { child, ready, output: () => output, exited };
}

/** SIGKILL, and wait until the process is gone. */
export async function kill9(started: Started): Promise<void> {
  started.child.kill('SIGKILL');
  await started.exited;
}
