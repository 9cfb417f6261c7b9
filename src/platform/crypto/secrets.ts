import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { desc, eq, sql } from 'drizzle-orm';
import { ConfigError } from '../../config.js';
import { newId } from '../clock.js';
import type { Db } from '../db/client.js';
import { dataKeys } from './table.js';

const VERSION = 'v1';

function seal(key: Buffer, plaintext: Buffer, aad: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(aad));
  const body = Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
  return `${iv.toString('base64url')}.${body.toString('base64url')}`;
}

function open(key: Buffer, sealed: string, aad: string): Buffer {
  const [ivText, bodyText] = sealed.split('.');
  if (!ivText || !bodyText) throw new Error('malformed sealed value');
  const body = Buffer.from(bodyText, 'base64url');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(ivText, 'base64url'));
  decipher.setAAD(Buffer.from(aad));
  decipher.setAuthTag(body.subarray(body.length - 16));
  return Buffer.concat([decipher.update(body.subarray(0, body.length - 16)), decipher.final()]);
}

export const masterKeyFile = (dataDir: string) => join(dataDir, 'master.key');
/** The new key written by `keys rotate-master` before its commit, renamed over master.key after. */
export const pendingMasterKeyFile = (dataDir: string) => join(dataDir, 'master.key.new');

/**
 * Where the master key comes from, as an operator names it in an error: MASTER_KEY, or the
 * key file when MASTER_KEY is unset (with a word on a rotation left half done).
 */
export function masterKeySource(configured: Buffer | undefined, dataDir: string): string {
  if (configured) return 'MASTER_KEY';
  const pending = pendingMasterKeyFile(dataDir);
  const interrupted = existsSync(pending)
    ? `; ${pending} is left by an interrupted \`keys rotate-master\`: if the rotation committed, it holds the key to move over master.key`
    : '';
  return `MASTER_KEY (unset, so the key file ${masterKeyFile(dataDir)}${interrupted})`;
}

function writeKeyFile(file: string, key: Buffer): void {
  const fd = openSync(file, 'w', 0o600);
  try {
    writeFileSync(fd, key.toString('hex') + '\n');
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  chmodSync(file, 0o600);
}

/** Step 1 of a rotation with a key file: the new key beside the old one, on disk before the commit. */
export function writePendingMasterKey(dataDir: string, key: Buffer): void {
  writeKeyFile(pendingMasterKeyFile(dataDir), key);
}

/** Step 2, after the commit: the new key replaces master.key in one rename (atomic). */
export function commitPendingMasterKey(dataDir: string): void {
  renameSync(pendingMasterKeyFile(dataDir), masterKeyFile(dataDir));
  const dir = openSync(dataDir, 'r');
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
}

/** The rotation did not commit: the old key stays the key. */
export function discardPendingMasterKey(dataDir: string): void {
  rmSync(pendingMasterKeyFile(dataDir), { force: true });
}

/**
 * The master key: MASTER_KEY when set, otherwise a key file generated once in DATA_DIR
 * (mode 0600) for the embedded default.
 */
export function resolveMasterKey(configured: Buffer | undefined, dataDir: string): Buffer {
  if (configured) return configured;
  const file = masterKeyFile(dataDir);
  if (existsSync(file)) {
    const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'hex');
    if (key.length !== 32) throw new Error(`${file} does not hold a 32-byte hex key`);
    return key;
  }
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const key = randomBytes(32);
  writeFileSync(file, key.toString('hex') + '\n', { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
  return key;
}

export interface SecretBox {
  /** Encrypts a secret; `context` (e.g. "idp:<tenant>") is bound as associated data. */
  encrypt(plaintext: string, context: string): string;
  /** Async: a value sealed by another instance under a data key this one has not loaded yet is fetched. */
  decrypt(sealed: string, context: string): Promise<string>;
  /**
   * Wraps every data key under `newKey` in one transaction (the sealed values stay as they are:
   * their data keys do not change) and uses `newKey` from then on. Refused, with nothing
   * changed, when the current master key does not open every data key.
   */
  rotateMasterKey(newKey: Buffer): Promise<{ dataKeys: number }>;
}

const unwrapRefused = (source: string) =>
  new ConfigError(
    source,
    'cannot unwrap the stored data keys: is it the key this database was set up with? After `bastion keys rotate-master` it is the new key',
  );

/**
 * Envelope encryption of secrets at rest: AES-256-GCM under the newest data key, which is
 * itself stored wrapped by the master key. Sealed values name their data key, so older
 * values stay readable after a new data key is added.
 */
export async function createSecretBox(db: Db, initialMasterKey: Buffer, source = 'MASTER_KEY'): Promise<SecretBox> {
  let masterKey = initialMasterKey;
  const keys = new Map<string, Buffer>();
  const rows = await db.select().from(dataKeys).orderBy(desc(dataKeys.createdAt));
  for (const row of rows) {
    try {
      keys.set(row.id, open(masterKey, row.wrappedKey, `data-key:${row.id}`));
    } catch {
      throw unwrapRefused(source);
    }
  }
  let activeId = rows[0]?.id;
  if (!activeId) {
    const id = newId();
    const key = randomBytes(32);
    // Two instances starting together may each add one; decrypt() loads the other's on demand.
    await db.insert(dataKeys).values({ id, wrappedKey: seal(masterKey, key, `data-key:${id}`) });
    // Another instance may have raced us: use whatever is newest now.
    keys.set(id, key);
    activeId = id;
  }
  const active = activeId;

  return {
    encrypt(plaintext, context) {
      return `${VERSION}.${active}.${seal(keys.get(active)!, Buffer.from(plaintext, 'utf8'), context)}`;
    },
    async decrypt(sealed, context) {
      const [version, keyId, iv, body] = sealed.split('.');
      if (version !== VERSION || !keyId || !iv || !body) throw new Error('malformed secret');
      let key = keys.get(keyId);
      if (!key) {
        // Sealed by another instance under a data key created after this one started.
        const [row] = await db.select().from(dataKeys).where(eq(dataKeys.id, keyId));
        if (!row) throw new Error('secret sealed with an unknown data key');
        try {
          key = open(masterKey, row.wrappedKey, `data-key:${row.id}`);
        } catch {
          // The master key was rotated by another process since this one started.
          throw unwrapRefused(source);
        }
        keys.set(keyId, key);
      }
      return open(key, `${iv}.${body}`, context).toString('utf8');
    },
    async rotateMasterKey(newKey) {
      if (newKey.equals(masterKey)) throw new Error('the new master key is the current one');
      const count = await db.transaction(async (tx) => {
        // No data key is added meanwhile (an instance starting on an empty table): it would be
        // wrapped by the old key only.
        await tx.execute(sql`lock table data_keys in exclusive mode`);
        const stored = await tx.select().from(dataKeys);
        const rewrapped = stored.map((row) => {
          const aad = `data-key:${row.id}`;
          let key: Buffer;
          try {
            key = open(masterKey, row.wrappedKey, aad);
          } catch {
            throw unwrapRefused(source);
          }
          const wrappedKey = seal(newKey, key, aad);
          if (!open(newKey, wrappedKey, aad).equals(key)) throw new Error(`data key ${row.id} does not read back under the new master key`);
          return { id: row.id, wrappedKey, key };
        });
        for (const row of rewrapped) await tx.update(dataKeys).set({ wrappedKey: row.wrappedKey }).where(eq(dataKeys.id, row.id));
        for (const row of rewrapped) keys.set(row.id, row.key);
        return rewrapped.length;
      });
      masterKey = newKey;
      return { dataKeys: count };
    },
  };
}
