import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ONE_PASS_ONLY } from '../helpers/passes.js';
import { nodeArgsFor } from '../../scripts/built.mjs';
import { servicePort } from '../helpers/ports.js';

function start(env: Record<string, string>): { child: ChildProcess; output: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, nodeArgsFor('src/main.ts'), {
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', EVM_LOCAL_RPC_PORT: '0', XRPL_LOCAL_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => out, exited };
}

async function waitFor(check: () => boolean, ms = 180_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.skipIf(ONE_PASS_ONLY)('the service process', () => {
  it('stops on a bad variable with one line naming it, exit code 1', async () => {
    const proc = start({ PORT: 'eighty' });
    expect(await proc.exited).toBe(1);
    expect(proc.output().trim()).toBe('Invalid configuration: PORT must be an integer between 0 and 65535');
  });

  it('on SIGTERM finishes an in-flight request, then exits 0', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'bastion-proc-'));
    const port = servicePort();
    const proc = start({ DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', METRICS_PORT: '0' });
    await waitFor(() => proc.output().includes('Prometheus metrics are served'));
    // Prometheus on its own listener: the process's and the HTTP metrics.
    const metricsUrl = /"metrics":"(http:\/\/127\.0\.0\.1:\d+\/metrics)"/.exec(proc.output())![1]!;
    await fetch(`http://127.0.0.1:${port}/health`);
    const scraped = await (await fetch(metricsUrl)).text();
    expect(scraped).toContain('bastion_process_cpu_user_seconds_total');
    expect(scraped).toMatch(/bastion_http_requests_total\{method="GET",route="\/health",status="200"\} 1/);
    expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(404);
    // The demo tenant file is announced by path only: its key never reaches the output.
    const demo = JSON.parse(readFileSync(join(dataDir, 'demo-tenant.json'), 'utf8')) as { tenantId: string; apiKey: string };
    expect(proc.output()).toContain('demo-tenant.json');
    expect(proc.output()).not.toContain(demo.apiKey);

    const body = JSON.stringify({ email: 'inflight@example.com' });
    const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          method: 'POST',
          path: '/users',
          // 100-continue: the server answers "continue" once it holds the request, whatever the load.
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'x-tenant-id': demo.tenantId, 'x-api-key': demo.apiKey, expect: '100-continue' },
        },
        (res) => {
          let text = '';
          res.on('data', (d: Buffer) => (text += d.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        },
      );
      req.on('error', reject);
      // The server holds the request, then SIGTERM, then the body: the request is in flight during shutdown.
      req.on('continue', () => {
        proc.child.kill('SIGTERM');
        setTimeout(() => req.end(body), 300);
      });
      req.flushHeaders();
    });
    const result = await response;
    expect(result.status).toBe(201);
    expect(JSON.parse(result.body)).toMatchObject({ email: 'inflight@example.com' });
    expect(await proc.exited).toBe(0);
    expect(proc.output()).toContain('shutting down');
  }, 240_000);
});
