import { runCli } from '../../src/cli.js';

/** What one CLI run printed and its exit code. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The operator CLI run in this process (src/cli.ts runCli) with exactly `env` as its
 * environment, as `node src/cli.ts ARGS` with that env would run it, without the ~4 s of a
 * new process. One test (test/platform/cli-process.test.ts) still runs the real binary.
 */
export async function runCliIn(env: Record<string, string | undefined>, ...args: string[]): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, { env, stdout: (text) => (stdout += text), stderr: (text) => (stderr += text) });
  return { code, stdout, stderr };
}

/** The CLI's JSON answer; a non-zero exit rejects with an error carrying `code` (the exit code) and `stderr`. */
export function cliJson(env: Record<string, string | undefined>) {
  return async (...args: string[]) => {
    const result = await runCliIn(env, ...args);
    if (result.code !== 0) throw Object.assign(new Error(`bastion ${args.join(' ')} exited ${result.code}: ${result.stderr}`), { code: result.code, stderr: result.stderr });
    return JSON.parse(result.stdout);
  };
}
