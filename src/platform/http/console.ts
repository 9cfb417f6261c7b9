import { existsSync, readFileSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { dirname, extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';

/**
 * The operator console's content security policy: its own files only, no inline script or
 * style, no external fonts or CDNs, never framed. `blob:` lets a document the admin downloaded
 * (with its own token) show inline; `connect-src 'self'` keeps its API calls on this origin.
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "frame-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

/** The repository's root: the nearest folder above this file holding package.json (src/ under tsx, dist/src/ when built). */
function projectRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) return process.cwd();
    dir = up;
  }
  return dir;
}

/** Where `npm run build` writes the console (vite, console/vite.config.ts). */
export function defaultConsoleDir(): string {
  return join(projectRoot(), 'dist', 'console');
}

function consoleHeaders(reply: FastifyReply): FastifyReply {
  return reply.header('content-security-policy', CONSOLE_CSP).header('x-frame-options', 'DENY').header('referrer-policy', 'no-referrer');
}

/**
 * Serves the operator console (static files built by vite) under /console, outside tenancy: the
 * page carries no data; everything it shows comes from the public API with the admin's token.
 * Files under assets/ are content-hashed (cached for a year); any other path under /console
 * answers index.html (the console routes in the browser). Without a build, a clear 503.
 */
export function registerConsole(app: FastifyInstance, dir: string = defaultConsoleDir()): void {
  const root = resolve(dir);
  const indexPath = join(root, 'index.html');
  let index: Buffer | undefined;
  const readIndex = (): Buffer | undefined => {
    if (index) return index;
    if (!existsSync(indexPath)) return undefined;
    index = readFileSync(indexPath);
    return index;
  };

  const sendIndex = (reply: FastifyReply) => {
    const html = readIndex();
    if (!html) {
      return consoleHeaders(reply)
        .status(503)
        .header('content-type', 'text/plain; charset=utf-8')
        .header('cache-control', 'no-store')
        .send('The operator console is not built: run `npm run build` (it writes dist/console).\n');
    }
    return consoleHeaders(reply).header('content-type', TYPES['.html']!).header('cache-control', 'no-cache').send(html);
  };

  app.get('/console', { schema: { hide: true } }, async (_request, reply) => reply.redirect('/console/', 301));
  app.get('/console/', { schema: { hide: true } }, async (_request, reply) => sendIndex(reply));
  app.get<{ Params: { '*': string } }>('/console/*', { schema: { hide: true } }, async (request, reply) => {
    const rest = request.params['*'] ?? '';
    const ext = extname(rest);
    // A page of the console (no extension): the app itself decides what to show.
    if (!ext) return sendIndex(reply);
    const file = resolve(root, rest);
    const type = TYPES[ext];
    if (!file.startsWith(root + sep) || !type) return consoleHeaders(reply).status(404).header('content-type', 'text/plain; charset=utf-8').send('Not found\n');
    const found = await stat(file).catch(() => undefined);
    if (!found?.isFile()) return consoleHeaders(reply).status(404).header('content-type', 'text/plain; charset=utf-8').send('Not found\n');
    const immutable = rest.startsWith('assets/');
    return consoleHeaders(reply)
      .header('content-type', type)
      .header('cache-control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
      .send(await readFile(file));
  });
}
