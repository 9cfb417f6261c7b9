import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUDIT_TYPES, isAuditType, type AuditType } from '../../src/platform/audit/types.js';
import { AUDIT_TYPE_PATTERN } from '../../src/modules/audit/schemas.js';
import { createHarness, type Harness } from '../helpers/harness.js';

/**
 * The audit types (src/platform/audit/types.ts) are one closed list. The types make
 * `audit.record` take a listed type; this file checks what the types cannot: every listed type
 * is written somewhere in src (no dead entry), every `type: 'a.b'` src writes is listed (a
 * literal cast past the type is caught here), each has a meaning, and the OpenAPI document
 * lists them.
 */
const root = join(import.meta.dirname, '..', '..');
const src = join(root, 'src');
const LIST_FILE = join(src, 'platform', 'audit', 'types.ts');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') && path !== LIST_FILE ? [path] : [];
  });
}
const files = sources(join(src, 'modules')).map((path) => ({ path: relative(root, path), text: readFileSync(path, 'utf8') }));
const types = Object.keys(AUDIT_TYPES) as AuditType[];

/** Where a type is written: its literal, or a template `<object>.${...}` whose suffix is a literal of that file (kyc.${step.action}). */
function writtenIn(type: string): string[] {
  const [object, ...rest] = type.split('.');
  const suffix = rest.join('.');
  return files
    .filter(({ text }) => text.includes(`'${type}'`) || (text.includes(`\`${object}.\${`) && text.includes(`'${suffix}'`)))
    .map(({ path }) => path);
}

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h.close());

describe('the audit types', () => {
  it('are each written somewhere in src/modules', () => {
    expect(types.length).toBeGreaterThan(40);
    expect(types.filter((type) => writtenIn(type).length === 0)).toEqual([]);
  });

  it('list every type src/modules writes (`type: ...` literals of dotted lower-case names)', () => {
    const written = new Map<string, string[]>();
    for (const { path, text } of files) {
      for (const m of text.matchAll(/\btype: '([a-z0-9_]+\.[a-z0-9_.]+)'/g)) written.set(m[1]!, [...(written.get(m[1]!) ?? []), path]);
    }
    expect(written.size).toBeGreaterThan(30);
    expect([...written].filter(([type]) => !isAuditType(type)).map(([type, where]) => `${type} (${where.join(', ')})`)).toEqual([]);
  });

  it('each has the audit routes’ shape and a meaning of its own', () => {
    const pattern = new RegExp(AUDIT_TYPE_PATTERN);
    const meanings = new Set<string>();
    for (const type of types) {
      expect(pattern.test(type) && type.length <= 64, type).toBe(true);
      expect(AUDIT_TYPES[type].length, type).toBeGreaterThan(10);
      expect(meanings.has(AUDIT_TYPES[type]), `${type} repeats a meaning`).toBe(false);
      meanings.add(AUDIT_TYPES[type]);
    }
  });

  it('the writer refuses a type outside the list, and the OpenAPI document lists them', async () => {
    await expect(h.container.audit.record(undefined, h.tenant.tenantId, { type: 'made.up' as never, actorType: 'system' })).rejects.toThrow(/made\.up/);
    const doc = (await h.inject({ method: 'GET', url: '/openapi.json' })).json() as { 'x-audit-types': Array<{ type: string; meaning: string }> };
    expect(doc['x-audit-types']).toEqual(types.map((type) => ({ type, meaning: AUDIT_TYPES[type] })));
  });
});
