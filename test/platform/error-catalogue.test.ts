import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE, type ErrorCode } from '../../src/platform/http/error-catalogue.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { openApiDocument } from '../helpers/openapi.js';

/**
 * The error catalogue (src/platform/http/error-catalogue.ts) is the one list of codes. The
 * types make every `new AppError(status, code, ...)` take a listed code with its listed status;
 * this file checks what the types cannot: no code is answered from outside the list (the
 * framework answers that build their body by hand included), no listed code is dead, no two
 * codes mean the same, and the OpenAPI document lists them.
 */
const root = join(import.meta.dirname, '..', '..');
const src = join(root, 'src');
const CATALOGUE_FILE = join(src, 'platform', 'http', 'error-catalogue.ts');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') && path !== CATALOGUE_FILE ? [path] : [];
  });
}

const files = sources(src).map((path) => ({ path: relative(root, path), text: readFileSync(path, 'utf8') }));
const codes = Object.keys(ERROR_CATALOGUE) as ErrorCode[];
const listed = new Set<string>(codes);

/** The codes src throws or answers: `new AppError(status, 'CODE'` anywhere, and `code: 'CODE'` in the HTTP answers built by hand. */
function thrownCodes(): Map<string, string[]> {
  const found = new Map<string, string[]>();
  const add = (code: string, where: string) => found.set(code, [...(found.get(code) ?? []), where]);
  for (const { path, text } of files) {
    for (const m of text.matchAll(/new AppError\(\s*[^,]+,\s*'([A-Za-z0-9_]+)'/g)) add(m[1]!, path);
    if (path.startsWith('src/platform/http/') || path === 'src/app.ts') {
      for (const m of text.matchAll(/\bcode: '([A-Za-z0-9_]+)'/g)) add(m[1]!, path);
    }
  }
  return found;
}

describe('the error catalogue', () => {
  it('lists every code src throws or answers', () => {
    const found = thrownCodes();
    expect(found.size).toBeGreaterThan(100);
    const unlisted = [...found].filter(([code]) => !listed.has(code)).map(([code, where]) => `${code} (${where.join(', ')})`);
    expect(unlisted).toEqual([]);
  });

  it('holds no code that nothing answers', () => {
    const text = files.map((f) => f.text).join('\n');
    const refusals = /export type OutboundRefusal = ([^;]+);/.exec(readFileSync(join(src, 'platform', 'http', 'outbound.ts'), 'utf8'))?.[1] ?? '';
    const used = (code: string) =>
      text.includes(`'${code}'`) ||
      // EventsErrors.urlRefused answers `EVENT_ENDPOINT_${reason}` for each OutboundRefusal.
      (code.startsWith('EVENT_ENDPOINT_URL_') && refusals.includes(`'${code.slice('EVENT_ENDPOINT_'.length)}'`));
    expect(codes.filter((code) => !used(code))).toEqual([]);
  });

  it('gives each code one status, an error status, and a meaning no other code has', () => {
    const meanings = new Map<string, string>();
    for (const code of codes) {
      const { status, meaning } = ERROR_CATALOGUE[code];
      expect(Number.isInteger(status) && status >= 400 && status < 600, code).toBe(true);
      expect(meaning.length, code).toBeGreaterThan(10);
      const key = meaning.toLowerCase().replace(/[^a-z0-9]+/g, ' ').trim();
      expect(meanings.get(key), `${code} means what ${meanings.get(key)} means`).toBeUndefined();
      meanings.set(key, code);
    }
  });

  it('each code is thrown with its listed status', () => {
    const wrong: string[] = [];
    for (const { path, text } of files) {
      for (const m of text.matchAll(/new AppError\(\s*(\d{3}),\s*'([A-Za-z0-9_]+)'/g)) {
        const entry = ERROR_CATALOGUE[m[2] as ErrorCode];
        if (entry && entry.status !== Number(m[1])) wrong.push(`${m[2]} ${m[1]} in ${path}, listed ${entry.status}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});

describe('the OpenAPI document', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(async () => h.close());

  it('lists the catalogue and, on each error answer, the codes of its status', async () => {
    // Dereferenced: the error answers are shared (components.responses), each with its codes.
    const doc = (await openApiDocument(h)) as {
      'x-error-codes': { code: string; status: number; meaning: string }[];
      paths: Record<string, Record<string, { responses: Record<string, { 'x-error-codes'?: string[] }> }>>;
    };
    const top = new Map(doc['x-error-codes'].map((e) => [e.code, e]));
    for (const code of codes) {
      const entry = ERROR_CATALOGUE[code];
      if (entry.meaning.startsWith('CLI:')) continue;
      expect(top.get(code), code).toEqual({ code, status: entry.status, meaning: entry.meaning });
    }
    let errorAnswers = 0;
    const onOperations = new Set<string>();
    for (const operations of Object.values(doc.paths)) {
      for (const operation of Object.values(operations)) {
        for (const [status, response] of Object.entries(operation.responses ?? {})) {
          if (Number(status) < 400) continue;
          errorAnswers++;
          const listedCodes = response['x-error-codes'] ?? [];
          listedCodes.forEach((code) => onOperations.add(code));
          expect(listedCodes.every((code) => ERROR_CATALOGUE[code as ErrorCode]?.status === Number(status)), status).toBe(true);
        }
      }
    }
    expect(errorAnswers).toBeGreaterThan(100);
    for (const code of ['WALLET_NOT_FOUND', 'USER_ID_REQUIRED', 'ADDRESS_INVALID', 'CHAIN_UNAVAILABLE', 'VALIDATION_FAILED']) expect(onOperations).toContain(code);
  });
});
