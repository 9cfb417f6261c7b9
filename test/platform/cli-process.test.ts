import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ONE_PASS_ONLY } from '../helpers/passes.js';
import { runCliIn } from '../helpers/cli.js';
import { nodeArgsFor } from '../../scripts/built.mjs';
import { servicePort } from '../helpers/ports.js';

/** The real binary (`node dist/bundle/cli.mjs`, or src/cli.ts through tsx when the build is stale): this file is the suite's smoke test of it (other CLI tests run it in process). */
function binary(env: Record<string, string>, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [...nodeArgsFor('src/cli.ts'), ...args], { env: { PATH: process.env.PATH ?? '', ...env } }, (error, stdout, stderr) => {
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** The CLI in this process (runCli), with the same environment the binary would get. */
const cli = (env: Record<string, string>, ...args: string[]) => runCliIn({ PATH: process.env.PATH ?? '', ...env }, ...args);

/** The service as a real process on the embedded DATA_DIR. */
function service(env: Record<string, string>): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, nodeArgsFor('src/main.ts'), { env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', HOST: '127.0.0.1', EVM_LOCAL_RPC_PORT: '0', XRPL_LOCAL_PORT: '0', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => out, exited };
}

async function waitFor(check: () => boolean | Promise<boolean>, ms = 120_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.skipIf(ONE_PASS_ONLY)('the CLI while the service runs on the embedded database', () => {
  // Without the socket (a service of an older version, or one that failed to open it) the CLI
  // refuses, naming the service: data-dir-lock.test.ts.
  it('runs through the service (socket 0600); a second service is refused; after a stop the CLI works alone; mail reads decoded', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'bastion-cli-'));
    const port = servicePort();
    const env = { DATA_DIR: dataDir, PORT: String(port) };
    const first = service(env);
    await waitFor(() => first.output().includes('Server listening'));
    expect(statSync(join(dataDir, 'bastion.sock')).mode & 0o777).toBe(0o600);

    // The command runs in the service: the tenant exists at once and after a restart.
    const during = await binary(env, 'tenant', 'create', '--name', 'while-running');
    expect(during.code, during.stderr).toBe(0);
    const live = JSON.parse(during.stdout) as { tenantId: string; apiKey: string };
    const seen = await fetch(`http://127.0.0.1:${port}/users`, { headers: { 'x-tenant-id': live.tenantId, 'x-api-key': live.apiKey } });
    expect(seen.status).toBe(200);
    const usage = await cli(env, 'api-key', 'create');
    expect(usage.code).toBe(2);
    expect(JSON.parse(usage.stderr)).toEqual({ error: 'usage', message: '--tenant is required' });

    // A second service on the same DATA_DIR is refused too.
    const second = service({ ...env, PORT: String(port + 1) });
    expect(await second.exited).toBe(1);
    expect(second.output()).toContain(`pid ${first.child.pid}`);

    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    expect(existsSync(join(dataDir, 'bastion.lock'))).toBe(false);
    expect(existsSync(join(dataDir, 'bastion.sock'))).toBe(false);

    const created = await cli(env, 'tenant', 'create', '--name', 'after-stop');
    expect(created.code, created.stderr).toBe(0);
    const tenant = JSON.parse(created.stdout) as { tenantId: string; apiKey: string };

    const again = service(env);
    try {
      await waitFor(() => again.output().includes('Server listening'));
      const base = `http://127.0.0.1:${port}`;
      for (const t of [tenant, live]) {
        const users = await fetch(`${base}/users`, { headers: { 'x-tenant-id': t.tenantId, 'x-api-key': t.apiKey } });
        expect(users.status).toBe(200);
      }

      // A mail written while the service runs is read by the CLI (no database needed).
      const signUp = await fetch(`${base}/auth/email`, {
        method: 'POST',
        headers: { 'x-tenant-id': tenant.tenantId, 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'reader@example.com', password: 'a long passphrase for reading' }),
      });
      expect(signUp.status).toBe(201);
      let listed = '';
      await waitFor(async () => {
        listed = (await cli(env, 'mail', 'list')).stdout;
        return listed.includes('reader@example.com');
      });
      const id = listed.split('\n').find((line) => line.includes('reader@example.com'))!.split(/\s+/)[0]!;
      const shown = await cli(env, 'mail', 'show', id);
      expect(shown.code).toBe(0);
      expect(shown.stdout).toContain('To: reader@example.com');
      const raw = readFileSync(join(dataDir, 'mail', `${id}.eml`), 'utf8');
      const link = /https?:\/\/\S+token=\S+/.exec(shown.stdout)?.[0];
      expect(link, shown.stdout).toBeDefined();
      expect(link).not.toContain('=3D');
      expect(raw).not.toContain(link!); // the file itself has it quoted-printable
    } finally {
      again.child.kill('SIGTERM');
      await again.exited;
    }
  }, 600_000);
});

describe.skipIf(ONE_PASS_ONLY)('CLI messages', () => {
  it('an unknown command says so; an unreadable --secret-file is named, not an internal error', async () => {
    const env = { DATA_DIR: mkdtempSync(join(tmpdir(), 'bastion-cli-')) };
    const unknown = await cli(env, 'tenant', 'destroy');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "tenant destroy"');
    expect(unknown.stderr).toContain('Usage: bastion');
    const missing = await cli(env, 'idv', 'configure', '--tenant', crypto.randomUUID(), '--provider', 'idv-a', '--base-url', 'https://idv.example', '--client-id', 'c', '--secret-file', '/nonexistent/secret');
    expect(missing.code).toBe(2);
    expect(JSON.parse(missing.stderr)).toEqual({ error: 'usage', message: '--secret-file /nonexistent/secret cannot be read: no such file' });
  }, 240_000);
});
