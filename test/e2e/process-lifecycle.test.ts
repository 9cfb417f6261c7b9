import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ONE_PASS_ONLY } from '../helpers/passes.js';
import { nodeArgsFor } from '../../scripts/built.mjs';

/** The service as `npm start` runs it: the build when fresh, otherwise the sources through tsx (scripts/built.mjs). */
function start(env: Record<string, string>): { child: ChildProcess; output: () => string; stderr: () => string; exited: Promise<{ code: number | null; at: number }> } {
  const child = spawn(process.execPath, nodeArgsFor('src/main.ts'), {
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => {
    out += d.toString();
    err += d.toString();
  });
  const exited = new Promise<{ code: number | null; at: number }>((resolve) => child.on('exit', (code) => resolve({ code, at: Date.now() })));
  return { child, output: () => out, stderr: () => err, exited };
}

async function waitFor(check: () => boolean, ms = 180_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A port nothing listens on: bound, read, released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

interface Outcome {
  status?: number;
  connection?: string;
  error?: string;
  at: number;
}

describe.skipIf(ONE_PASS_ONLY)('the service process', () => {
  it('with a database it cannot reach, exits 1 with one line naming DATABASE_URL (password masked), its host and port, and what to check', async () => {
    const port = await closedPort();
    const proc = start({ DATA_DIR: mkdtempSync(join(tmpdir(), 'bastion-nodb-')), DATABASE_URL: `postgres://bastion:s3cret-pw@127.0.0.1:${port}/bastion` });
    expect((await proc.exited).code).toBe(1);
    const lines = proc.stderr().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`DATABASE_URL=postgres://bastion:****@127.0.0.1:${port}/bastion (host 127.0.0.1, port ${port})`);
    expect(lines[0]).toContain('ECONNREFUSED');
    expect(lines[0]).toContain('Check that PostgreSQL is running');
    expect(proc.output()).not.toContain('s3cret-pw');
  }, 120_000);

  it('on SIGTERM under load answers every request already sent, closes its keep-alive connections and exits 0', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'bastion-lifecycle-'));
    const port = await closedPort();
    const proc = start({ DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1' });
    await waitFor(() => proc.output().includes('Server listening'));
    const demo = JSON.parse(readFileSync(join(dataDir, 'demo-tenant.json'), 'utf8')) as { tenantId: string; apiKey: string };

    // Keep-alive connections, as a load balancer or an HTTP client pool holds them.
    const agent = new Agent({ keepAlive: true, maxSockets: 50 });
    const send = (path: string, headers: Record<string, string>, body: unknown, via = agent): { sent: Promise<void>; answered: Promise<Outcome> } => {
      const text = JSON.stringify(body);
      let markSent!: () => void;
      const sent = new Promise<void>((resolve) => (markSent = resolve));
      const answered = new Promise<Outcome>((resolve) => {
        const req = request(
          { host: '127.0.0.1', port, method: 'POST', path, agent: via, headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), 'x-tenant-id': demo.tenantId, ...headers } },
          (res) => {
            res.resume();
            res.on('end', () => resolve({ status: res.statusCode, connection: res.headers.connection, at: Date.now() }));
          },
        );
        req.on('finish', markSent);
        req.on('error', (error: NodeJS.ErrnoException) => {
          markSent();
          resolve({ error: error.code ?? error.message, at: Date.now() });
        });
        req.end(text);
      });
      return { sent, answered };
    };

    // A warm-up answer leaves an idle keep-alive connection open, as a pool would.
    const idle = new Agent({ keepAlive: true });
    expect((await send('/users', { 'x-api-key': demo.apiKey }, { email: 'warm@example.com' }, idle).answered).status).toBe(201);

    // 50 at once: user creations (API key) and logins (each an argon2id verification).
    const calls = Array.from({ length: 50 }, (_, i) =>
      i % 2 === 0
        ? send('/users', { 'x-api-key': demo.apiKey }, { email: `load-${i}@example.com` })
        : send('/auth/login', {}, { email: `nobody-${i}@example.com`, password: 'not the password 123' }),
    );
    // Every request is written to the server's socket, then the signal: all 50 are in flight.
    await Promise.all(calls.map((c) => c.sent));
    const signalledAt = Date.now();
    proc.child.kill('SIGTERM');
    const outcomes = await Promise.all(calls.map((c) => c.answered));
    const exit = await proc.exited;
    agent.destroy();
    idle.destroy();

    expect(outcomes.filter((o) => o.error), proc.output().slice(-3000)).toEqual([]);
    const statuses = outcomes.map((o, i) => `${i % 2 === 0 ? 'user' : 'login'} ${o.status}`);
    expect(statuses.filter((s) => s !== 'user 201' && s !== 'login 401')).toEqual([]);
    // The answers written once the service took the signal tell the client the connection ends
    // (one already being written then may not: its connection is closed once idle).
    const tookSignal = Number(/"time":(\d+)[^\n]*"signal":"SIGTERM"/.exec(proc.output())?.[1]);
    expect(tookSignal).toBeGreaterThanOrEqual(signalledAt - 5);
    expect(outcomes.filter((o) => o.at - tookSignal > 200 && o.connection !== 'close')).toEqual([]);
    expect(exit.code).toBe(0);
    expect(proc.output()).not.toContain('grace period elapsed');
    // No idle connection holds the exit: it follows the last answer at once, well inside the 10 s grace.
    const lastAnswer = Math.max(...outcomes.map((o) => o.at));
    expect(exit.at - lastAnswer).toBeLessThan(2_000);
    expect(exit.at - signalledAt).toBeLessThan(10_000);
    console.info(`SIGTERM to exit ${exit.at - signalledAt} ms; last answer to exit ${exit.at - lastAnswer} ms`);
  }, 240_000);
});
