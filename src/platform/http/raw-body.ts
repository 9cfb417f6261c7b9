import type { FastifyInstance, FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyRequest {
    /** The exact bytes of a signed request (a provider webhook), for its signature. */
    rawBody?: Buffer;
  }
}

/**
 * For a scope of signed routes (provider webhooks): every body is kept as its exact bytes in
 * `request.rawBody` and parsed as JSON; a body that is not JSON parses to undefined, left for
 * validation to refuse after the signature check (so an unsigned request is always a 401).
 */
export function keepRawJsonBody(scope: FastifyInstance, options: { bodyLimit?: number; clean?: (parsed: unknown) => unknown } = {}): void {
  scope.removeAllContentTypeParsers();
  const parserOptions = { parseAs: 'buffer' as const, ...(options.bodyLimit ? { bodyLimit: options.bodyLimit } : {}) };
  scope.addContentTypeParser('*', parserOptions, (request: FastifyRequest, body: Buffer | string, done) => {
    const raw = Buffer.isBuffer(body) ? body : Buffer.from(body);
    request.rawBody = raw;
    try {
      const parsed: unknown = JSON.parse(raw.toString('utf8'));
      done(null, options.clean ? options.clean(parsed) : parsed);
    } catch {
      done(null, undefined);
    }
  });
}
