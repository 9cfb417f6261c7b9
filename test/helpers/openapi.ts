import type { Harness } from './harness.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- the OpenAPI document is walked as plain JSON */

/**
 * The document with every local `$ref` (named schemas, shared error answers, parameters,
 * headers) replaced by a copy of what it points at: the view of tests that derive requests
 * or checks from one operation's schemas (malformed inputs, hostile inputs, the codes of an
 * answer). The document itself shares them by reference (src/platform/http/openapi.ts).
 */
export function dereferenced(doc: any): any {
  const target = (ref: string): unknown => ref.slice(2).split('/').reduce((at: any, key: string) => at?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
  const inline = (node: any, seen: string[]): any => {
    if (Array.isArray(node)) return node.map((item) => inline(item, seen));
    if (!node || typeof node !== 'object') return node;
    if (typeof node.$ref === 'string' && node.$ref.startsWith('#/')) {
      if (seen.includes(node.$ref)) throw new Error(`recursive $ref ${node.$ref}`);
      const { $ref, ...siblings } = node;
      return { ...inline(target($ref), [...seen, $ref]), ...inline(siblings, seen) };
    }
    return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, inline(value, seen)]));
  };
  return inline(doc, []);
}

/** GET /openapi.json of the harness's app, dereferenced. */
export async function openApiDocument(h: Pick<Harness, 'inject'>): Promise<any> {
  const res = await h.inject({ method: 'GET', url: '/openapi.json' });
  if (res.statusCode !== 200) throw new Error(`/openapi.json answered ${res.statusCode}`);
  return dereferenced(res.json());
}
