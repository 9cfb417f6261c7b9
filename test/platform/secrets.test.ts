import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecretBox, resolveMasterKey } from '../../src/platform/crypto/secrets.js';
import { createHarness, TEST_MASTER_KEY, type Harness } from '../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h.close());

describe('secrets at rest', () => {
  it('round-trips, binds the context, and detects tampering', async () => {
    const sealed = h.container.secrets.encrypt('client-secret-value', 'idp:t1');
    expect(sealed).not.toContain('client-secret-value');
    expect(await h.container.secrets.decrypt(sealed, 'idp:t1')).toBe('client-secret-value');
    await expect(h.container.secrets.decrypt(sealed, 'idp:t2')).rejects.toThrow();
    const tampered = sealed.slice(0, -3) + (sealed.endsWith('A') ? 'BBB' : 'AAA');
    await expect(h.container.secrets.decrypt(tampered, 'idp:t1')).rejects.toThrow();
  });

  it('a second box on the same database reads what the first sealed; a wrong master key is refused', async () => {
    const other = await createSecretBox(h.database.db, Buffer.from(TEST_MASTER_KEY, 'hex'));
    expect(await other.decrypt(h.container.secrets.encrypt('x', 'c'), 'c')).toBe('x');
    await expect(createSecretBox(h.database.db, Buffer.alloc(32, 1))).rejects.toThrow(/MASTER_KEY/);
  });

  it('generates the embedded master key file once, mode 0600', () => {
    const dir = mkdtempSync(join(tmpdir(), 'bastion-key-'));
    const first = resolveMasterKey(undefined, dir);
    expect(statSync(join(dir, 'master.key')).mode & 0o777).toBe(0o600);
    expect(resolveMasterKey(undefined, dir).equals(first)).toBe(true);
  });
});
