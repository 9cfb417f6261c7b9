import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ONE_PASS_ONLY } from '../helpers/passes.js';
import { servicePort } from '../helpers/ports.js';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitFor(check: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.skipIf(ONE_PASS_ONLY)('npm start', () => {
  // What `npm start &` then `kill %1` does, and what process managers send.
  it('SIGTERM to the npm process reaches the service, which stops and frees the port', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'bastion-npm-'));
    const port = servicePort();
    const npm = spawn('npm', ['start'], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info', EVM_LOCAL_RPC_PORT: '0', XRPL_LOCAL_PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    npm.stdout.on('data', (d: Buffer) => (out += d.toString()));
    npm.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const npmExited = new Promise<number | null>((resolve) => npm.on('exit', (code) => resolve(code)));
    // The first start may build the service (prestart) before it listens.
    await waitFor(() => out.includes('Server listening'), 280_000);
    const servicePid = Number(/"pid":(\d+).*Server listening/.exec(out)?.[1]);
    expect(servicePid).toBeGreaterThan(0);
    expect(servicePid).not.toBe(npm.pid);
    expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);

    npm.kill('SIGTERM');
    await npmExited;
    await waitFor(() => !alive(servicePid), 15_000);
    expect(out).toContain('shutting down');
    expect(out).toContain('"msg":"stopped"');
    await expect(fetch(`http://127.0.0.1:${port}/health`)).rejects.toThrow();
  }, 300_000);
});
