import { runMigrations } from '../../src/platform/db/migrate.js';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { createSecretBox, resolveMasterKey } from '../../src/platform/crypto/secrets.js';
import { dataKeys } from '../../src/platform/crypto/table.js';
import { openDatabase } from '../../src/platform/db/client.js';
import { createHarness, migratedImage, TEST_MASTER_KEY, type Harness } from '../helpers/harness.js';
import { ownPostgresDatabase } from '../helpers/own-database.js';

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

  it('rotating the master key rewraps every data key in one transaction; a data key the current key cannot open refuses it, nothing changed', async () => {
    // Databases of their own, of the pass's kind: data_keys is not tenant-scoped, the harness's is shared.
    const ofItsOwn = async () => {
      const suiteUrl = process.env.DATABASE_URL;
      if (!suiteUrl) return openDatabase({ image: migratedImage() });
      const own = await ownPostgresDatabase(suiteUrl, 'secrets');
      const database = await openDatabase({ databaseUrl: own.url, poolSize: 2 });
      await runMigrations(database, { sandboxes: false });
      return { ...database, close: () => database.close().then(own.drop) };
    };
    const [db, other] = await Promise.all([ofItsOwn(), ofItsOwn()]);
    try {
      const k1 = Buffer.alloc(32, 1);
      const k2 = Buffer.alloc(32, 2);
      const box = await createSecretBox(db.db, k1);
      const sealed = box.encrypt('value', 'ctx');
      // A data key wrapped by another master key, as if added behind this box's back.
      await createSecretBox(other.db, Buffer.alloc(32, 3));
      const [foreign] = await other.db.select().from(dataKeys);
      await db.db.insert(dataKeys).values(foreign!);
      const before = await db.db.select().from(dataKeys);
      await expect(box.rotateMasterKey(k2)).rejects.toThrow(/MASTER_KEY cannot unwrap the stored data keys/);
      expect(await db.db.select().from(dataKeys)).toEqual(before);

      await db.db.delete(dataKeys).where(eq(dataKeys.id, foreign!.id));
      await expect(box.rotateMasterKey(k1)).rejects.toThrow(/current one/);
      expect(await box.rotateMasterKey(k2)).toEqual({ dataKeys: 1 });
      expect(await box.decrypt(sealed, 'ctx')).toBe('value');
      await expect(createSecretBox(db.db, k1)).rejects.toThrow(/MASTER_KEY/);
      expect(await (await createSecretBox(db.db, k2)).decrypt(sealed, 'ctx')).toBe('value');
    } finally {
      await Promise.all([db.close(), other.close()]);
    }
  });
});
