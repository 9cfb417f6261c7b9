import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ONE_PASS_ONLY } from '../helpers/passes.js';
import { claimDataDir, DataDirBusyError } from '../../src/platform/db/data-dir-lock.js';
import { runCliIn } from '../helpers/cli.js';

const dir = () => mkdtempSync(join(tmpdir(), 'bastion-lock-'));
const hold = (dataDir: string, pid: number, role: 'service' | 'cli') =>
  writeFileSync(join(dataDir, 'bastion.lock'), JSON.stringify({ pid, role, startedAt: '2026-01-01T00:00:00.000Z' }));

/** The CLI in process (the lock's holder below is another process: this test runner's parent). */
const cli = (dataDir: string, ...args: string[]) => runCliIn({ PATH: process.env.PATH ?? '', DATA_DIR: dataDir }, ...args);

describe.skipIf(ONE_PASS_ONLY)('one process per embedded DATA_DIR', () => {
  it('a live holder refuses the claim, naming it; a dead one is taken over; release removes the lock', () => {
    const dataDir = dir();
    hold(dataDir, process.ppid, 'service');
    expect(() => claimDataDir(dataDir, 'cli')).toThrow(DataDirBusyError);
    expect(() => claimDataDir(dataDir, 'cli')).toThrow(`the Bastion service (pid ${process.ppid}`);
    hold(dataDir, 2 ** 22 + 12345, 'service'); // above any pid_max: no such process
    const release = claimDataDir(dataDir, 'service');
    expect(existsSync(join(dataDir, 'bastion.lock'))).toBe(true);
    release();
    expect(existsSync(join(dataDir, 'bastion.lock'))).toBe(false);
  });

  it('a CLI command is refused (exit 1, data_dir_busy, the pid) when the holder cannot take it: no socket, or another command', async () => {
    for (const role of ['service', 'cli'] as const) {
      const dataDir = dir();
      hold(dataDir, process.ppid, role);
      const res = await cli(dataDir, 'tenant', 'create', '--name', 'x');
      expect(res.code).toBe(1);
      expect(res.stdout).toBe('');
      const error = JSON.parse(res.stderr) as { error: string; message: string };
      expect(error.error).toBe('data_dir_busy');
      expect(error.message).toContain(`(pid ${process.ppid},`);
      expect(error.message).toContain(role === 'service' ? 'the Bastion service' : 'a Bastion CLI command');
    }
  }, 240_000);
});
