import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { desc, eq } from 'drizzle-orm';
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

/**
 * The master key: MASTER_KEY when set, otherwise a key file generated once in DATA_DIR
 * (mode 0600) for the embedded default.
 */
export function resolveMasterKey(configured: Buffer | undefined, dataDir: string): Buffer {
  if (configured) return configured;
  const file = join(dataDir, 'master.key');
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
}

/**
 * Envelope encryption of secrets at rest: AES-256-GCM under the newest data key, which is
 * itself stored wrapped by the master key. Sealed values name their data key, so older
 * values stay readable after a new data key is added.
 */
export async function createSecretBox(db: Db, masterKey: Buffer): Promise<SecretBox> {
  const keys = new Map<string, Buffer>();
  const rows = await db.select().from(dataKeys).orderBy(desc(dataKeys.createdAt));
  for (const row of rows) {
    try {
      keys.set(row.id, open(masterKey, row.wrappedKey, `data-key:${row.id}`));
    } catch {
      throw new Error('MASTER_KEY cannot unwrap the stored data keys: is it the key this database was set up with?');
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
        key = open(masterKey, row.wrappedKey, `data-key:${row.id}`);
        keys.set(keyId, key);
      }
      return open(key, `${iv}.${body}`, context).toString('utf8');
    },
  };
}
