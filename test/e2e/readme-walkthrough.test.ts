/**
 * The README's walkthrough, run as written: every ```sh block of README.md, in order, as one
 * bash script against a freshly started service (its own DATA_DIR and a free port), so the
 * walkthrough stays true. A block the script leaves out says so in the README, with its reason,
 * on the line before its fence: `<!-- walkthrough: not run (reason) -->`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ONE_PASS_ONLY } from '../helpers/passes.js';
import { shBlocks, type ReadmeBlock } from '../helpers/markdown.js';
import { nodeArgsFor } from '../../scripts/built.mjs';

const ROOT = resolve(import.meta.dirname, '../..');
/**
 * One bash script of the blocks to run. Each block records where it starts, so an error names
 * the README line; `curl` stops at an HTTP error and shows its answer (--fail-with-body).
 */
export function walkthroughScript(blocks: ReadmeBlock[], port: number): { script: string; lineOf: (scriptLine: number) => string } {
  const header = [
    'set -Eeuo pipefail',
    'shopt -s inherit_errexit',
    'curl() { command curl --fail-with-body "$@"; }',
    `trap 'echo "WALKTHROUGH FAILED at script line $LINENO: $BASH_COMMAND (exit $?)" >&2' ERR`,
  ];
  const out = [...header];
  const starts: Array<{ scriptLine: number; block: ReadmeBlock }> = [];
  for (const block of blocks.filter((b) => !b.notRun)) {
    out.push(`: "README.md:${block.line} ${block.section.replace(/["$`\\]/g, '')}"`);
    starts.push({ scriptLine: out.length + 1, block });
    out.push(...block.code.replaceAll('localhost:3000', `localhost:${port}`).split('\n'));
  }
  const lineOf = (scriptLine: number) => {
    const found = [...starts].reverse().find((s) => s.scriptLine <= scriptLine);
    if (!found) return `script line ${scriptLine} (the test's header)`;
    return `README.md:${found.block.line + scriptLine - found.scriptLine} (${found.block.section})`;
  };
  return { script: out.join('\n') + '\n', lineOf };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  await new Promise((done) => server.close(done));
  return port;
}

interface Run {
  code: number | null;
  output: string;
}

function run(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number }): Promise<Run> {
  return new Promise((done) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => {
      output += `\n[killed after ${options.timeoutMs / 1000} s]`;
      process.kill(-child.pid!, 'SIGKILL');
    }, options.timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      done({ code, output });
    });
  });
}

describe('README.md code blocks', () => {
  const blocks = shBlocks(readFileSync(join(ROOT, 'README.md'), 'utf8'));

  it('are sh, and each block the walkthrough leaves out says why', () => {
    expect(blocks.filter((b) => !b.notRun).length).toBeGreaterThanOrEqual(10);
    for (const block of blocks.filter((b) => b.notRun)) expect(block.notRun!.length, `README.md:${block.line}`).toBeGreaterThan(10);
  });

  it('the parser refuses a bare fence and reads the not-run marker', () => {
    expect(() => shBlocks('# A\n```\nls\n```\n')).toThrow(/README.md:2: a code block without a language/);
    const parsed = shBlocks('## S\n<!-- walkthrough: not run (needs a provider) -->\n```sh\nnpm start\n```\n\n```sh\necho hi\n```\n```json\n{}\n```\n');
    expect(parsed).toEqual([
      { line: 4, section: '## S', code: 'npm start', notRun: 'needs a provider' },
      { line: 8, section: '## S', code: 'echo hi' },
    ]);
    const { script, lineOf } = walkthroughScript(parsed, 4321);
    const lines = script.split('\n');
    expect(lineOf(lines.indexOf('echo hi') + 1)).toBe('README.md:8 (## S)');
    expect(script).not.toContain('npm start');
  });
});

describe.skipIf(ONE_PASS_ONLY)('the README walkthrough, run in order on a fresh service', () => {
  let work: string;
  let service: ChildProcess | undefined;
  let serviceLog = '';
  let port: number;
  const env = (dataDir: string): NodeJS.ProcessEnv => ({
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    LANG: 'C.UTF-8',
    DATA_DIR: dataDir,
    TMPDIR: join(work, 'tmp'),
  });

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'bastion-readme-'));
    mkdirSync(join(work, 'tmp'));
    port = await freePort();
    const dataDir = join(work, 'data');
    service = spawn(process.execPath, nodeArgsFor('src/main.ts'), {
      cwd: ROOT,
      // The local chains on random ports: the README reads their addresses from GET /ready.
      env: { ...env(dataDir), PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', EVM_LOCAL_RPC_PORT: '0', XRPL_LOCAL_PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    service.stdout!.on('data', (d: Buffer) => (serviceLog += d.toString()));
    service.stderr!.on('data', (d: Buffer) => (serviceLog += d.toString()));
    const deadline = Date.now() + 150_000;
    for (;;) {
      const ready = await fetch(`http://127.0.0.1:${port}/ready`).then((r) => r.status === 200, () => false);
      if (ready) break;
      if (service.exitCode !== null || Date.now() > deadline) throw new Error(`the service did not become ready:\n${serviceLog.slice(-3000)}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }, 180_000);

  afterAll(async () => {
    if (service?.pid && service.exitCode === null) {
      const exited = new Promise((done) => service!.on('exit', done));
      process.kill(-service.pid, 'SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
      if (service.exitCode === null) process.kill(-service.pid, 'SIGKILL');
    }
    rmSync(work, { recursive: true, force: true });
  }, 30_000);

  it('every sh block not marked "not run" succeeds, each using what the earlier ones set', async () => {
    const { script, lineOf } = walkthroughScript(shBlocks(readFileSync(join(ROOT, 'README.md'), 'utf8')), port);
    const file = join(work, 'walkthrough.sh');
    writeFileSync(file, script);
    const started = Date.now();
    const result = await run('bash', [file], { cwd: ROOT, env: env(join(work, 'data')), timeoutMs: 240_000 });
    const failedAt = [...result.output.matchAll(/WALKTHROUGH FAILED at script line (\d+): (.*)/g)].pop();
    const where = failedAt ? `${lineOf(Number(failedAt[1]))}: ${failedAt[2]}` : `exit ${result.code}`;
    expect(
      result.code,
      `the README walkthrough failed at ${where}\n--- its last output ---\n${result.output.slice(-4000)}\n--- the service's log ---\n${serviceLog.slice(-2000)}`,
    ).toBe(0);
    console.log(`README walkthrough: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }, 250_000);
});
