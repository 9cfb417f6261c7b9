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

  fatal(...line: Line): void {
    this.made.fatal(...line);
  }

  error(...line: Line): void {
    this.made.error(...line);
  }

  warn(...line: Line): void {
    this.made.warn(...line);
  }

  info(...line: Line): void {
    this.made.info(...line);
  }

  debug(...line: Line): void {
    this.made.debug(...line);
  }

  trace(...line: Line): void {
    this.made.trace(...line);
  }

  silent(...line: Line): void {
    this.made.silent(...line);
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.made.child(bindings, options);
  }
}

/** Fastify's `childLoggerFactory`: each request's logger, made on first use. */
export function lazyRequestLogger(logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  return new LazyRequestLogger(logger, bindings, options);
}
