/**
 * Maps PostgreSQL constraint violations to domain errors at the edge of the repos.
 * Works for node-postgres and PGlite errors, and for Drizzle's wrapper around them.
 */
export interface PgErrorInfo {
  code: string;
  constraint?: string;
}

export function pgErrorInfo(error: unknown): PgErrorInfo | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current && typeof current === 'object'; depth++) {
    const candidate = current as { code?: unknown; constraint?: unknown; cause?: unknown };
    if (typeof candidate.code === 'string' && /^[0-9A-Z]{5}$/.test(candidate.code)) {
      return {
        code: candidate.code,
        constraint: typeof candidate.constraint === 'string' ? candidate.constraint : undefined,
      };
    }
    current = candidate.cause;
  }
  return undefined;
}

export const PG_UNIQUE_VIOLATION = '23505';
export const PG_FOREIGN_KEY_VIOLATION = '23503';

/** True when `error` is a unique violation of the named constraint. */
export function isUniqueViolation(error: unknown, constraint: string): boolean {
  const info = pgErrorInfo(error);
  return info?.code === PG_UNIQUE_VIOLATION && info.constraint === constraint;
}

/**
 * Runs `fn` and translates a violation of one of the listed constraints into the mapped error.
 * Any other error is rethrown unchanged.
 */
export async function mapConstraintErrors<T>(
  fn: () => Promise<T>,
  map: Record<string, () => Error>,
): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    const info = pgErrorInfo(error);
    const make = info?.constraint ? map[info.constraint] : undefined;
    if (make && (info?.code === PG_UNIQUE_VIOLATION || info?.code === PG_FOREIGN_KEY_VIOLATION)) throw make();
    throw error;
  }
}
