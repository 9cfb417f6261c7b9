import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { declaredTenantRoutes } from '../../src/platform/http/guards.js';
import { createHarness, type Harness } from '../helpers/harness.js';

/** Every `routeCases(() => h, 'METHOD /path', { ... })` entry of the suite, with the text of its spec. */
function routeCaseEntries(): Map<string, string> {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.test.ts') && name !== 'route-coverage.test.ts') files.push(path);
    }
  };
  walk(join(import.meta.dirname, '..'));
  const entries = new Map<string, string>();
  const call = /routeCases\(\s*\(\)\s*=>\s*[\w.]+\s*,\s*'([A-Z]+ [^']+)'/g;
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const matches = [...text.matchAll(call)];
    matches.forEach((match, i) => {
      const end = matches[i + 1]?.index ?? text.length;
      entries.set(match[1]!, (entries.get(match[1]!) ?? '') + text.slice(match.index, end));
    });
  }
  return entries;
}

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h.close());

describe('route-test coverage', () => {
  it('every protected tenant-scoped route of the app has a routeCases entry', () => {
    const entries = routeCaseEntries();
    const protectedRoutes = [...declaredTenantRoutes(h.app)].filter(([, r]) => r.auth !== 'public' && !r.credentialInHandler).map(([name]) => name);
    expect(protectedRoutes.length).toBeGreaterThan(30);
    const missing = protectedRoutes.filter((route) => !entries.has(route));
    expect(missing, 'routes without routeCases(() => h, "METHOD /path", ...) in test/').toEqual([]);
  });

  it("every protected route with a path parameter tests another tenant's object", () => {
    const entries = routeCaseEntries();
    const missing = [...declaredTenantRoutes(h.app)]
      .filter(([name, r]) => r.auth !== 'public' && !r.credentialInHandler && name.includes('{'))
      .map(([name]) => name)
      // `foreign: ...` in the entry, or a spread of a shared helper named foreign* (`...foreignCase(...)`).
      .filter((route) => !/\bforeign\s*:|\.\.\.foreign\w*\(/.test(entries.get(route) ?? ''));
    expect(missing, 'routes with a path parameter whose routeCases entry has no `foreign:`').toEqual([]);
  });

  it('names no route the app does not declare', () => {
    const declared = declaredTenantRoutes(h.app);
    const unknown = [...routeCaseEntries().keys()].filter((route) => !declared.has(route));
    expect(unknown).toEqual([]);
  });
});
