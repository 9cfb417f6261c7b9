import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ARGON2_OPTIONS } from '../../src/modules/auth/passwords.js';
import { createPasswordWorkers, PASSWORD_WORKER_NICENESS } from '../../src/modules/auth/password-workers.js';

/** Niceness of each thread of this process (Linux /proc; field 19 of stat). */
function threadNiceness(): number[] {
  return readdirSync('/proc/self/task').map((tid) => {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  });
}

describe('password workers', () => {
  it('hash and verify on worker threads of lowered priority, and stop on close', async () => {
    const workers = createPasswordWorkers(2);
    try {
      const options = { ...ARGON2_OPTIONS, memoryCost: 1024, timeCost: 1 };
      const hash = (await workers.run({ op: 'hash', password: 'correct horse battery', options })) as string;
      expect(hash).toMatch(/^\$argon2id\$/);
      const [right, wrong] = await Promise.all([
        workers.run({ op: 'verify', hash, password: 'correct horse battery', options }),
        workers.run({ op: 'verify', hash, password: 'wrong horse battery', options }),
      ]);
      expect([right, wrong]).toEqual([true, false]);
      expect(threadNiceness().filter((n) => n === PASSWORD_WORKER_NICENESS)).toHaveLength(2);
      await expect(workers.run({ op: 'verify', hash: 'not a hash', password: 'x', options })).rejects.toThrow();
    } finally {
      await workers.close();
    }
    expect(threadNiceness().filter((n) => n === PASSWORD_WORKER_NICENESS)).toHaveLength(0);
  });
});
