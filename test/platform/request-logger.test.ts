import { describe, expect, it } from 'vitest';
import Fastify from 'fastify';
import type { FastifyBaseLogger } from 'fastify';
import { createLogger } from '../../src/platform/log/logger.js';
import { LazyRequestLogger, lazyRequestLogger } from '../../src/platform/log/request-logger.js';

/** The process logger (its redaction and serializers), writing into an array. */
function capture(level: 'info' | 'debug' = 'info') {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger(level, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
  return { logger, lines };
}

describe("a request's logger, made on first use", () => {
  it('makes no pino child until a line is written, then writes as the child would: bindings, redaction, level', () => {
    const { logger, lines } = capture();
    let children = 0;
    const parent = new Proxy(logger, {
      get: (target, prop, receiver) =>
        prop === 'child'
          ? (...args: Parameters<typeof logger.child>) => {
              children++;
              return target.child(...args);
            }
          : (Reflect.get(target, prop, receiver) as unknown),
    });
    const log = new LazyRequestLogger(parent as FastifyBaseLogger, { reqId: 'req-1' }, {});
    expect(log.level).toBe('info');
    log.debug({ detail: 1 }, 'below the level');
    expect(children).toBe(1);
    expect(lines).toEqual([]);

    const fresh = new LazyRequestLogger(parent as FastifyBaseLogger, { reqId: 'req-2' }, {});
    expect(children).toBe(1);
    fresh.warn({ body: { password: 'hunter2', name: 'Ada' } }, 'something');
    fresh.error({ token: 'abc' }, 'again');
    expect(children).toBe(2);
    expect(lines).toMatchObject([
      { level: 40, reqId: 'req-2', msg: 'something', body: { password: '[REDACTED]', name: 'Ada' } },
      { level: 50, reqId: 'req-2', msg: 'again', token: '[REDACTED]' },
    ]);
    expect(JSON.stringify(lines)).not.toContain('hunter2');

    // Its own level (a route's logLevel) before and after it is made; a child of it is the child's.
    const quiet = new LazyRequestLogger(logger, { reqId: 'req-3' }, { level: 'warn' });
    expect(quiet.level).toBe('warn');
    quiet.info('not written');
    quiet.child({ step: 'x' }).warn('written');
    expect(lines.at(-1)).toMatchObject({ reqId: 'req-3', step: 'x', msg: 'written' });
    expect(lines.some((l) => l.msg === 'not written')).toBe(false);
    quiet.level = 'info';
    quiet.info('now written');
    expect(lines.at(-1)).toMatchObject({ reqId: 'req-3', msg: 'now written' });
  });

  it("is Fastify's request.log: a handler's line carries the request id", async () => {
    const { logger, lines } = capture();
    const app = Fastify({ loggerInstance: logger as FastifyBaseLogger, childLoggerFactory: lazyRequestLogger, genReqId: () => 'the-request' });
    app.get('/quiet', async () => ({ ok: true }));
    app.get('/loud', async (request) => {
      request.log.warn({ secret: 's3cr3t' }, 'handler line');
      return { ok: true };
    });
    try {
      expect((await app.inject({ method: 'GET', url: '/quiet' })).statusCode).toBe(200);
      expect((await app.inject({ method: 'GET', url: '/loud' })).statusCode).toBe(200);
      expect(lines.find((l) => l.msg === 'handler line')).toMatchObject({ level: 40, reqId: 'the-request', secret: '[REDACTED]' });
    } finally {
      await app.close();
    }
  });
});
