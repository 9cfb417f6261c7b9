import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

interface Manifest {
  name?: string;
  version?: string;
  engines?: { node?: unknown };
}

const read = (file: string): Manifest => JSON.parse(readFileSync(file, 'utf8')) as Manifest;
const root = read('package.json');
const range = String(root.engines?.node ?? '');
/** The first version of each Node line package.json admits (20.19.0, 22.13.0...). */
const lowest = range.split('||').map((part) => semver.minVersion(part.trim())!.version);

/** Every installed package's manifest, nested node_modules included. */
function manifests(dir: string, out: Array<{ path: string; manifest: Manifest }> = []): Array<{ path: string; manifest: Manifest }> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.name.startsWith('@')) {
      manifests(path, out);
      continue;
    }
    const file = join(path, 'package.json');
    if (existsSync(file)) out.push({ path, manifest: read(file) });
    if (existsSync(join(path, 'node_modules'))) manifests(join(path, 'node_modules'), out);
  }
  return out;
}

describe('Node versions (package.json engines)', () => {
  it('names each supported line from its first version, and the tests run on one of them', () => {
    expect(lowest.length).toBeGreaterThanOrEqual(2);
    expect(semver.satisfies(process.version, range), `${process.version} is outside ${range}`).toBe(true);
  });

  it('every installed package supports the first version of every supported line (no EBADENGINE on npm install)', () => {
    const refused: string[] = [];
    for (const { path, manifest } of manifests('node_modules')) {
      const wanted = manifest.engines?.node;
      if (typeof wanted !== 'string' || !semver.validRange(wanted)) continue;
      for (const version of lowest) {
        if (!semver.satisfies(version, wanted)) refused.push(`${path} ${manifest.version}: node ${wanted} excludes ${version}`);
      }
    }
    expect(refused).toEqual([]);
  });
});
