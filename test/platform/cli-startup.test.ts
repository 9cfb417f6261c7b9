import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ONE_PASS_ONLY } from '../helpers/passes.js';

/**
 * The CLI loads the container (every module and provider: the EVM chain, the XRPL ledger...)
 * only when it runs a command itself. `mail list|show`, and the commands the running service
 * executes for it over its socket, do without: each of those calls used to cost seconds of CPU
 * (the README walkthrough makes about fifteen of them).
 */
describe.skipIf(ONE_PASS_ONLY)('CLI start-up', () => {
  it('mail list loads neither the container nor a module or provider', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bastion-cli-startup-'));
    const record = join(dir, 'loaded.txt');
    writeFileSync(record, '');
    // A module-resolution hook (after tsx's) that writes down every URL the process loads.
    writeFileSync(
      join(dir, 'hooks.mjs'),
      `import { appendFileSync } from 'node:fs';
let file;
export async function initialize(data) { file = data.file; }
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(file, result.url + '\\n');
  return result;
}
`,
    );
    writeFileSync(
      join(dir, 'register.mjs'),
      `import { register } from 'node:module';
register(${JSON.stringify(new URL(`file://${join(dir, 'hooks.mjs')}`).href)}, { data: { file: ${JSON.stringify(record)} } });
`,
    );
    const result = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        ['--import', 'tsx', '--import', join(dir, 'register.mjs'), 'src/cli.ts', 'mail', 'list'],
        { env: { PATH: process.env.PATH ?? '', DATA_DIR: join(dir, 'data') } },
        (error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(`no mail in ${join(dir, 'data', 'mail')}\n`);
    const loaded = readFileSync(record, 'utf8').split('\n').filter(Boolean);
    expect(loaded.some((url) => url.endsWith('/src/cli.ts'))).toBe(true);
    expect(loaded.filter((url) => /\/src\/(container|app)\.ts$|\/src\/modules\/[^/]+\/module\.ts$|@nomicfoundation\/edr|\/node_modules\/xrpl\//.test(url))).toEqual([]);
  }, 60_000);
});
