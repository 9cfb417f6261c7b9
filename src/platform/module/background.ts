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
  /**
   * Aborted once the process shuts down (`close`): work that waits between attempts (a webhook
   * resent after a delay) passes it to its waits and stops waiting, so shutdown is not held up.
   */
  readonly signal: AbortSignal;
  /** Shutdown: aborts `signal`, then drains. */
  close(): Promise<void>;
  readonly pending: number;
}

export function createBackgroundRunner(logger: Logger): BackgroundRunner {
  const inFlight = new Set<Promise<void>>();
  const stopping = new AbortController();
  const drain = async () => {
    while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
  };
  return {
    run(name, work) {
      const task: Promise<void> = new Promise<void>((resolve) => setImmediate(resolve))
        .then(work)
        .catch((error: unknown) => logger.error({ err: error, task: name }, `${name} failed`))
        .finally(() => inFlight.delete(task));
      inFlight.add(task);
    },
    drain,
    signal: stopping.signal,
    async close() {
      stopping.abort();
      await drain();
    },
    get pending() {
      return inFlight.size;
    },
  };
}
