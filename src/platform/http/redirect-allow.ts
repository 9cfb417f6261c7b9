/**
 * The allow-list of client URLs an IdP login may return to. An entry names a scheme, host,
 * port and path prefix; a requested URL matches when the first three are equal and its path
 * is the prefix or lies below it (segment-wise: `/app` admits `/app/done`, not `/apple`).
 * URLs are compared after WHATWG parsing, so `..`, `%2e%2e`, backslashes and default ports
 * cannot smuggle a different target past the comparison.
 */

import { isLoopbackHost } from './hosts.js';

export { isLoopbackHost };

function parseHttpUrl(raw: string): URL | undefined {
  if (raw.length > 2048 || /[\s\\]/.test(raw)) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  if (url.username || url.password || !url.hostname) return undefined;
  return url;
}

/**
 * Normalizes an allow-list entry, or returns an explanation of why it cannot be one.
 * Entries are https, except on loopback hosts (local development); no query, no fragment.
 */
export function normalizeAllowEntry(raw: string): { entry: string } | { problem: string } {
  const url = parseHttpUrl(raw);
  if (!url) return { problem: `${raw} is not an absolute http(s) URL without credentials` };
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) return { problem: `${raw} must use https (http is for loopback hosts only)` };
  if (url.search || url.hash) return { problem: `${raw} must not carry a query or fragment` };
  return { entry: `${url.origin}${url.pathname}` };
}

function pathWithin(path: string, prefix: string): boolean {
  if (path === prefix) return true;
  const base = prefix.endsWith('/') ? prefix : `${prefix}/`;
  return path.startsWith(base);
}

/**
 * The URL to redirect to when `requested` is admitted by one of the entries; undefined otherwise.
 * A fragment on the requested URL is refused: the service writes the fragment itself.
 */
export function matchRedirect(requested: string, allow: readonly string[]): string | undefined {
  const url = parseHttpUrl(requested);
  if (!url || url.hash || requested.includes('#')) return undefined;
  for (const raw of allow) {
    const entry = parseHttpUrl(raw);
    if (!entry) continue;
    if (entry.protocol === url.protocol && entry.host === url.host && pathWithin(url.pathname, entry.pathname)) return url.href;
  }
  return undefined;
}
