/**
 * The one loop behind the background workers that poll the database (the mail outbox, the
 * in-flight sweeper): `run` one pass at a time, whether the timer or a caller (a test) starts
 * it; after each pass the next one is scheduled `nextDelay(result)` later (or `intervalMs` after
 * a failure, reported to `onError`), on an unref'd timer; `stop` cancels the timer and waits for
 * the pass in progress.
 */
export interface Poller<T> {
  start(): void;
  stop(): Promise<void>;
  /** One pass now, after the one in progress (if any). */
  runOnce(): Promise<T>;
}

export function createPoller<T>(options: {
  run: () => Promise<T>;
  intervalMs: number;
  /** Delay before the next pass after a successful one (default `intervalMs`). */
  nextDelay?: (result: T) => number;
  onError?: (error: unknown) => void;
}): Poller<T> {
  let running = false;
  let timer: NodeJS.Timeout | undefined;
  let tail: Promise<unknown> = Promise.resolve();

  function runOnce(): Promise<T> {
    const next = tail.then(options.run, options.run);
    tail = next.catch(() => undefined);
    return next;
  }

  function schedule(delayMs: number): void {
    if (!running) return;
    timer = setTimeout(() => {
      timer = undefined;
      runOnce().then(
        (result) => schedule(options.nextDelay ? options.nextDelay(result) : options.intervalMs),
        (error: unknown) => {
          options.onError?.(error);
          schedule(options.intervalMs);
        },
      );
    }, delayMs);
    timer.unref();
  }

  return {
    start() {
      if (running) return;
      running = true;
      schedule(0);
    },
    async stop() {
      running = false;
      if (timer) clearTimeout(timer);
      timer = undefined;
      await tail;
    },
    runOnce,
  };
}
