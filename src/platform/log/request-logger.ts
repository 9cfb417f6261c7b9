import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions, LevelWithSilentOrString, LogFn } from 'pino';

type Line = Parameters<LogFn>;

/**
 * A request's logger (`request.log`), made on its first use. Fastify makes one for every request,
 * a pino child bound to the request id, and pino writes a child's bindings out through the
 * logger's redaction when it makes the child: with the wildcard redaction paths that was 3–4% of
 * the main thread of a small read (GET /users/me), for a logger most requests never write to
 * (the access line has a logger of its own: access-log.ts). The child is made, with the same
 * bindings and options, when a line is first written to it or a child asked of it; until then
 * its level is the one it would have.
 */
export class LazyRequestLogger implements FastifyBaseLogger {
  #made: FastifyBaseLogger | undefined;
  // One method for each level on the prototype (below): the made child's.
  declare fatal: LogFn;
  declare error: LogFn;
  declare warn: LogFn;
  declare info: LogFn;
  declare debug: LogFn;
  declare trace: LogFn;
  declare silent: LogFn;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  /** The pino child, made once. */
  get made(): FastifyBaseLogger {
    return (this.#made ??= this.parent.child(this.bindings, this.options));
  }

  get level(): LevelWithSilentOrString {
    return this.#made?.level ?? this.options.level ?? this.parent.level;
  }

  set level(level: LevelWithSilentOrString) {
    this.made.level = level;
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.made.child(bindings, options);
  }
}

for (const level of ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const) {
  Object.defineProperty(LazyRequestLogger.prototype, level, {
    value(this: LazyRequestLogger, ...line: Line): void {
      this.made[level](...line);
    },
    writable: true,
    configurable: true,
  });
}

/** Fastify's `childLoggerFactory`: each request's logger, made on first use. */
export function lazyRequestLogger(logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  return new LazyRequestLogger(logger, bindings, options);
}
