import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ONE_PASS_ONLY } from '../helpers/passes.js';
import { nodeArgsFor } from '../../scripts/built.mjs';
import { controlSocketPath } from '../../src/control-client.js';
import { claimDataDir } from '../../src/platform/db/data-dir-lock.js';

/**
 * The CLI loads the commands and the container (every module and provider: the EVM chain, the
 * XRPL ledger, the tables, the schemas...) only when it runs a command itself. `--help`,
 * `mail list|show`, and the commands the running service executes for it over its control
 * socket, do without: each of those calls used to cost one to two seconds of CPU (the README
 * walkthrough makes about thirty of them).
 */
describe.skipIf(ONE_PASS_ONLY)('CLI start-up', () => {
  let dir: string;
  let record: string;
  let register: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'bastion-cli-startup-'));
    record = join(dir, 'loaded.txt');
    // A module-resolution hook that writes down every URL the process loads.
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
    register = join(dir, 'register.mjs');
    writeFileSync(
      register,
      `import { register } from 'node:module';
register(${JSON.stringify(new URL(`file://${join(dir, 'hooks.mjs')}`).href)}, { data: { file: ${JSON.stringify(record)} } });
`,
    );
  });

  /** Runs the CLI (dist/src when fresh, else src: the module graph, which the bundle of npm run cli folds into chunks) with the hook; answers its output and what it loaded. */
  async function cli(dataDir: string, ...args: string[]) {
    writeFileSync(record, '');
    const [first, ...rest] = nodeArgsFor('src/cli.ts', { bundle: false });
    // After tsx's hooks when it runs from source, so the URLs are the .ts files'.
    const argv = first === '--import' ? [first, rest[0]!, '--import', register, ...rest.slice(1)] : ['--import', register, first!, ...rest];
    const result = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(process.execPath, [...argv, ...args], { env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir } }, (error, stdout, stderr) =>
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });
    const loaded = readFileSync(record, 'utf8').split('\n').filter(Boolean);
    expect(loaded.some((url) => /\/src\/cli\.(ts|js)$/.test(url))).toBe(true);
    return { ...result, loaded };
  }

  /** What only a command run in this process needs. */
  const heavy = (loaded: string[]) =>
    loaded.filter((url) =>
      /\/src\/(container|app|cli-commands|cli-provider-aliases)\.(ts|js)$|\/src\/(modules|providers|sandboxes)\/|\/node_modules\/(drizzle-orm|typebox|@nomicfoundation\/edr|xrpl|viem|@aws-sdk)\//.test(url),
    );

  it('--help and mail list load neither the commands, the container, a module, a provider nor a table', async () => {
    const help = await cli(join(dir, 'none'), '--help');
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toContain('Usage: bastion');
    expect(heavy(help.loaded)).toEqual([]);
    const mail = await cli(join(dir, 'data'), 'mail', 'list');
    expect(mail.code, mail.stderr).toBe(0);
    expect(mail.stdout).toBe(`no mail in ${join(dir, 'data', 'mail')}\n`);
    expect(heavy(mail.loaded)).toEqual([]);
  }, 60_000);

  it('a command the running service answers on its socket: sent and printed, with none of them loaded', async () => {
    // The service's side as the CLI sees it: the DATA_DIR lock held by a live service, and one
    // JSON line answered on the socket (the service's own side is in cli-process.test.ts).
    const dataDir = join(dir, 'served');
    const release = claimDataDir(dataDir, 'service');
    const received: unknown[] = [];
    const server = createServer((socket) => {
      socket.setEncoding('utf8');
      socket.once('data', (line: string) => {
        received.push(JSON.parse(line));
        socket.end(JSON.stringify({ ok: true, result: { tenantId: 't-1', apiKey: 'bst_x', keyId: 'k-1' } }) + '\n');
      });
    });
    await new Promise<void>((done) => server.listen(controlSocketPath(dataDir), done));
    try {
      const created = await cli(dataDir, 'tenant', 'create', '--name', 'acme');
      expect(created.code, created.stderr).toBe(0);
      expect(JSON.parse(created.stdout)).toEqual({ tenantId: 't-1', apiKey: 'bst_x', keyId: 'k-1' });
      expect(received).toEqual([{ command: 'tenant create', options: { name: 'acme' }, lists: { redirectAllow: [], settings: [], secrets: [], secretContents: {} } }]);
      expect(heavy(created.loaded)).toEqual([]);
      // An unknown command is refused before anything is sent or loaded.
      const unknown = await cli(dataDir, 'tenant', 'explode');
      expect(unknown.code).toBe(2);
      expect(unknown.stderr).toContain('unknown command "tenant explode"');
      expect(received).toHaveLength(1);
      expect(heavy(unknown.loaded)).toEqual([]);
    } finally {
      await new Promise((done) => server.close(done));
      release();
    }
  }, 60_000);

});
