import { randomUUID } from 'node:crypto';
import { mkdir, open, readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { writeHashed } from '../hashing.js';
import { assertBlobKey, isBlobKey, type BlobInfo, type BlobStore } from '../port.js';

const TEMP = '.tmp';

function isMissing(error: unknown): boolean {
  return (error as { code?: string }).code === 'ENOENT';
}

/**
 * Blobs as files under `root` (DATA_DIR/blobs): `ab/cd/abcd...` by SHA-256. Each put writes a
 * temporary file (mode 0600) in `root/.tmp`, fsyncs it, renames it over the final name (atomic
 * on one file system, so a reader sees the whole file or none) and fsyncs the directory.
 */
export function createLocalBlobStore(options: { root: string }) {
  const root = options.root;
  const tempDir = join(root, TEMP);
  let ready: Promise<unknown> | undefined;
  const ensureRoot = () => (ready ??= mkdir(tempDir, { recursive: true, mode: 0o700 }));
  const pathOf = (key: string) => join(root, key.slice(0, 2), key.slice(2, 4), key);

  async function syncDir(dir: string): Promise<void> {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  }

  async function info(key: string): Promise<BlobInfo | undefined> {
    try {
      const s = await stat(pathOf(key));
      return { key, size: s.size, lastModified: s.mtime };
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }

  const store: BlobStore & { removeStaleTemp(before: Date): Promise<number> } = {
    kind: 'local',

    async put(data, putOptions = {}) {
      await ensureRoot();
      const temp = join(tempDir, randomUUID());
      const handle = await open(temp, 'wx', 0o600);
      let written;
      try {
        written = await writeHashed(handle, data, putOptions.maxBytes);
      } catch (error) {
        await handle.close();
        await unlink(temp).catch(() => undefined);
        throw error;
      }
      await handle.close();
      const key = written.sha256;
      const dir = join(root, key.slice(0, 2), key.slice(2, 4));
      try {
        await mkdir(dir, { recursive: true, mode: 0o700 });
        // Same content already there: the rename replaces it with identical bytes and a new
        // age, which a concurrent sweep then leaves alone.
        await rename(temp, pathOf(key));
        await syncDir(dir);
      } catch (error) {
        await unlink(temp).catch(() => undefined);
        throw error;
      }
      return { key, sha256: key, size: written.size };
    },

    async get(key) {
      assertBlobKey(key);
      try {
        const handle = await open(pathOf(key), 'r');
        return handle.createReadStream();
      } catch (error) {
        if (isMissing(error)) return undefined;
        throw error;
      }
    },

    async head(key) {
      assertBlobKey(key);
      return info(key);
    },

    async delete(key) {
      assertBlobKey(key);
      await rm(pathOf(key), { force: true });
    },

    async *list() {
      const names = async (dir: string) => {
        try {
          return await readdir(dir);
        } catch (error) {
          if (isMissing(error)) return [];
          throw error;
        }
      };
      for (const first of await names(root)) {
        if (!/^[0-9a-f]{2}$/.test(first)) continue;
        for (const second of await names(join(root, first))) {
          if (!/^[0-9a-f]{2}$/.test(second)) continue;
          for (const name of await names(join(root, first, second))) {
            if (!isBlobKey(name) || !name.startsWith(first + second)) continue;
            const found = await info(name);
            if (found) yield found;
          }
        }
      }
    },

    /** Temporary files of puts that never finished (a crash mid-write), older than `before`. */
    async removeStaleTemp(before) {
      let removed = 0;
      let entries: string[] = [];
      try {
        entries = await readdir(tempDir);
      } catch (error) {
        if (!isMissing(error)) throw error;
      }
      for (const name of entries) {
        const path = join(tempDir, name);
        const s = await stat(path).catch(() => undefined);
        if (s && s.mtime < before) {
          await rm(path, { force: true });
          removed++;
        }
      }
      return removed;
    },
  };
  return store;
}

export type LocalBlobStore = ReturnType<typeof createLocalBlobStore>;
