import type { Logger } from 'pino';

/**
 * Work that runs after a request has been answered (mail lookups behind generic answers).
 * Unlike a bare setImmediate, the runner knows what is in flight: shutdown and tests await
 * `drain()` instead of sleeping, and nothing started before close is lost.
 */
export interface BackgroundRunner {
  /** Starts `work` on the next turn of the event loop; errors are logged under `name`. */
  run(name: string, work: () => Promise<void>): void;
  /** Resolves when everything started so far, and anything it started, has finished. */
  drain(): Promise<void>;
  readonly pending: number;
}

export function createBackgroundRunner(logger: Logger): BackgroundRunner {
  const inFlight = new Set<Promise<void>>();
  return {
    run(name, work) {
      const task: Promise<void> = new Promise<void>((resolve) => setImmediate(resolve))
        .then(work)
        .catch((error: unknown) => logger.error({ err: error, task: name }, `${name} failed`))
        .finally(() => inFlight.delete(task));
      inFlight.add(task);
    },
    async drain() {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
    get pending() {
      return inFlight.size;
    },
  };
}
