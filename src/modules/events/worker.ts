import type { Logger } from 'pino';
import pLimit from 'p-limit';
import { newId, systemClock, type Clock } from '../../platform/clock.js';
import type { SecretBox } from '../../platform/crypto/secrets.js';
import type { Db, DbOrTx } from '../../platform/db/client.js';
import { TEST_EVENT_TYPE } from '../../platform/events/outbox.js';
import { describeOutboundError, parseOutboundUrl, postOutboundTo, type OutboundPolicy } from '../../platform/http/outbound.js';
import { createDeliveryRepo, type ClaimedDelivery, type ClaimedEndpoint } from './delivery-repo.js';
import { RETRY_WINDOW_MS, retryDelayMs } from './schedule.js';
import { secretContext, signEvent, signingKey, type SigningKey } from './signing.js';

export const DELIVERY_RETENTION_MS = 7 * 24 * 3_600_000;

/**
 * How often dispatch looks at the whole outbox, not only past its floor (events that committed
 * late), and the claim at every due delivery, not only those due from its floor.
 */
export const DISPATCH_FULL_SCAN_MS = 1_000;

/**
 * How far before what the last claims leased the next claim starts reading: a dispatch or a retry
 * that took its time before a claim and committed after it (another pipeline's, another
 * instance's) makes rows due a moment before that claim's time.
 */
export const CLAIM_FLOOR_MARGIN_MS = 1_000;

export interface DeliveryWorkerOptions {
  db: Db;
  clock: Clock;
  secrets: SecretBox;
  logger: Logger;
  /** Read at every batch (EVENTS_ALLOW_PRIVATE_URLS). */
  policy: () => OutboundPolicy;
  /** Disables an endpoint whose delivery failed for the whole retry window, with an audit row, in `db`. */
  disableEndpoint: (db: DbOrTx, tenantId: string, endpointId: string, reason: string) => Promise<void>;
  /** Deliveries sent per batch (default 128): those claimed, then as many of the deliveries dispatch makes as there is room for (leased by dispatch). */
  batchSize?: number;
  /** Deliveries in flight at once within a batch (default 16). */
  concurrency?: number;
  /** Outbox events fanned out per dispatch round (default 500). */
  dispatchBatchSize?: number;
  pollIntervalMs?: number;
  /** Rounds start() runs side by side (default 2). */
  pipelines?: number;
  /**
   * How long a claimed row stays leased (default 60 s); a row is sent only while at least
   * `timeoutMs` of its lease remains, so the lease must be longer than the request timeout.
   */
  leaseMs?: number;
  /** Per request: connect, send, answer (default 5 s). */
  timeoutMs?: number;
  retentionMs?: number;
  /** Counts each delivery's outcome (metrics): delivered, retry (failed, tried again later) or failed (given up; a test event at its first failure). */
  onOutcome?: (outcome: 'delivered' | 'retry' | 'failed', count: number) => void;
  /** Pruning runs at most this often (injected clock; default 60 s). */
  pruneIntervalMs?: number;
  retryWindowMs?: number;
  /** The jitter's source, in [0, 1). */
  random?: () => number;
  /**
   * The time written into `webhook-timestamp`. Receivers check it against their own clocks
   * (5 minutes of tolerance), so it is the real time even when schedule decisions follow an
   * injected clock.
   */
  wallClock?: Clock;
  /** Deliver only the events of these tenants (test harnesses sharing a database). */
  tenantIds?: () => readonly string[];
}

export interface DrainResult {
  dispatched: number;
  attempted: number;
  delivered: number;
  pruned: number;
}

export interface DeliveryWorker {
  /** Polls every `pollIntervalMs` (default 500 ms) on an unref'd timer. */
  start(): void;
  /** Stops polling and waits for the batch in flight. */
  stop(): Promise<void>;
  /** One round: dispatch new events, deliver one batch of due deliveries, prune old ones. */
  drainOnce(): Promise<DrainResult>;
  /** Rounds until nothing is due (tests): the sum of their results. */
  drainAll(maxRounds?: number): Promise<DrainResult>;
}

/**
 * Delivers the outbox to the tenants' endpoints as Standard Webhooks, at least once:
 * dispatch fans each new event out into a delivery row per matching endpoint; a batch of due
 * rows is claimed under a lease (several instances share the work, FOR UPDATE SKIP LOCKED);
 * 2xx is delivered, anything else is retried on the backoff schedule until the retry window
 * closes, when the row fails and its endpoint is disabled. Delivered rows are pruned after
 * the retention window. Logs ids and outcomes, never payloads or secrets.
 */
export function createDeliveryWorker(options: DeliveryWorkerOptions): DeliveryWorker {
  const { clock, secrets } = options;
  const logger = options.logger.child({ component: 'event-worker' });
  const repo = createDeliveryRepo(options.db);
  const batchSize = options.batchSize ?? 128;
  const concurrency = options.concurrency ?? 16;
  const dispatchBatchSize = options.dispatchBatchSize ?? 500;
  const pollIntervalMs = options.pollIntervalMs ?? 500;
  const pipelines = Math.max(1, options.pipelines ?? 2);
  const leaseMs = options.leaseMs ?? 60_000;
  const timeoutMs = options.timeoutMs ?? 5_000;
  const retentionMs = options.retentionMs ?? DELIVERY_RETENTION_MS;
  const pruneIntervalMs = options.pruneIntervalMs ?? 60_000;
  let lastPrune = -Infinity;
  const retryWindowMs = options.retryWindowMs ?? RETRY_WINDOW_MS;
  const random = options.random ?? Math.random;
  const wallClock = options.wallClock ?? systemClock;

  let running = false;
  let tail: Promise<unknown> = Promise.resolve();
  // The dispatch floor: dispatch looks at outbox events from this seq on. The pending index
  // keeps an entry for every event dispatched since the last vacuum (the row left the index's
  // predicate; its entry stays until vacuum removes it), and a look from its start steps over
  // them all: 6.7 ms a probe and 26 ms a pick of 500 behind a backlog of 40,000. Past the last
  // event dispatched, only what is new is read. An event whose seq was taken before and which
  // committed after (seqs commit out of order) sits below the floor: once a second (the worker's
  // clock) the look starts from the beginning again and finds it.
  let dispatchFloor = 0;
  let floorScannedAt = -Infinity;
  // The claim floor, for the same reason: the due index keeps an entry for every version of a
  // row it ever held until vacuum removes it (a claim's lease and a delivery's record each leave
  // one behind), and a claim reads it in order from its start, stepping over every dead entry
  // due before now: 2,220 pages and 3–5 ms a claim behind 600,000 of them, growing until vacuum
  // runs. A claim that leased fewer rows than it asked for leased every due row it could lock:
  // the next may start at its `now`. A full one leased the first due rows in the index's order:
  // the next may start at the latest of their due times. Either, less CLAIM_FLOOR_MARGIN_MS: a
  // dispatch that took its `now` before the claim and committed after it (another pipeline's)
  // makes rows due just before it. Rows due earlier still (another claim's that it gave back, a
  // retry set by a clock far behind this one) are found by the claim's look at the whole index,
  // once a second (the worker's clock).
  let claimFloor: Date | undefined;
  let claimScannedAt = -Infinity;

  /** The endpoint's live signing keys, opened once per batch. */
  async function signingKeys(endpoint: ClaimedEndpoint, now: Date): Promise<SigningKey[]> {
    const context = secretContext(endpoint.tenantId, endpoint.id);
    const list = [signingKey(await secrets.decrypt(endpoint.secretSealed, context))];
    if (endpoint.previousSecretSealed && endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt > now) {
      list.push(signingKey(await secrets.decrypt(endpoint.previousSecretSealed, context)));
    }
    return list;
  }

  async function failed(row: ClaimedDelivery, status: number | null, reason: string): Promise<void> {
    const now = clock.now();
    const ids = { tenantId: row.tenantId, endpointId: row.endpointId, eventId: row.eventId, attempts: row.attempts, error: reason };
    if (row.event?.type === TEST_EVENT_TYPE) {
      // A test event is tried once: its failure is the answer the tenant asked for, never a
      // reason to disable the endpoint (POST .../deliveries/{eventId}/retry tries it again).
      if (await repo.markFailed(options.db, row, status, reason)) options.onOutcome?.('failed', 1);
      logger.warn(ids, 'test event delivery failed');
      return;
    }
    if (now.getTime() - row.queuedAt.getTime() >= retryWindowMs) {
      await options.db.transaction(async (tx) => {
        if (!(await repo.markFailed(tx, row, status, reason))) return;
        options.onOutcome?.('failed', 1);
        await options.disableEndpoint(tx, row.tenantId, row.endpointId, `delivery failed for ${Math.round(retryWindowMs / 3_600_000)} hours: ${reason}`.slice(0, 256));
      });
      logger.error(ids, 'event delivery failed for the whole retry window; endpoint disabled');
      return;
    }
    const nextAttemptAt = new Date(now.getTime() + retryDelayMs(row.attempts, random));
    if (await repo.markRetry(row, nextAttemptAt, status, reason)) {
      options.onOutcome?.('retry', 1);
      logger.warn({ ...ids, nextAttemptAt: nextAttemptAt.toISOString() }, 'event delivery failed; will retry');
    }
  }

  /**
   * Sends a claimed batch; answers once every request has its answer, with the write that
   * records the batch's successes (one statement) still running, so the polling loop claims its
   * next batch meanwhile (the rows stay leased until it commits: no other claim takes them).
   */
  async function deliverBatch(rows: ClaimedDelivery[], leaseUntil: Date): Promise<{ recorded: Promise<number> }> {
    const now = clock.now();
    const keysOf = new Map<string, Promise<SigningKey[]>>();
    // The policy as of this batch (EVENTS_ALLOW_PRIVATE_URLS), and each endpoint's URL checked
    // under it once: a refusal fails each of its rows as it would one by one.
    const policy = options.policy();
    const targets = new Map<string, URL | Error>();
    const targetOf = (endpoint: ClaimedEndpoint): URL => {
      let target = targets.get(endpoint.url);
      if (!target) {
        try {
          target = parseOutboundUrl(endpoint.url, policy);
        } catch (error) {
          target = error instanceof Error ? error : new Error(String(error));
        }
        targets.set(endpoint.url, target);
      }
      if (target instanceof Error) throw target;
      return target;
    };
    const succeeded: ClaimedDelivery[] = [];
    const statuses = new Map<string, number>();
    await pLimit(concurrency).map(rows, async (row) => {
      const { endpoint, event } = row;
      // A row whose lease ends before a request could finish is left alone: another worker
      // takes it over when the lease ends (this one was stalled; sending now risks a double).
      if (clock.now().getTime() > leaseUntil.getTime() - timeoutMs) return;
      try {
        if (!event) return await failed(row, null, 'EVENT_MISSING: the outbox event is gone');
        const key = `${endpoint.tenantId}/${endpoint.id}`;
        if (!keysOf.has(key)) keysOf.set(key, signingKeys(endpoint, now));
        const signed = signEvent(event, await keysOf.get(key)!, wallClock.now());
        let status: number | null = null;
        let reason: string;
        try {
          status = (await postOutboundTo(targetOf(endpoint), { headers: signed.headers, body: signed.body, timeoutMs }, policy)).status;
          reason = `HTTP ${status}`;
        } catch (error) {
          reason = describeOutboundError(error);
        }
        if (status !== null && status >= 200 && status < 300) {
          succeeded.push(row);
          statuses.set(row.eventId + row.endpointId, status);
          return;
        }
        await failed(row, status, reason);
      } catch (error) {
        // The lease brings the row back; nothing is lost.
        logger.error({ eventId: row.eventId, endpointId: row.endpointId, error: describeOutboundError(error) }, 'could not record the event delivery outcome');
      }
    });
    // One statement for the batch's successes; if it fails, the leases bring the rows back
    // (they are sent again: at least once).
    if (succeeded.length === 0) return { recorded: Promise.resolve(0) };
    const recorded = repo.markDelivered(succeeded, clock.now(), statuses).then((delivered) => {
      options.onOutcome?.('delivered', delivered);
      if (delivered < succeeded.length) logger.warn({ count: succeeded.length - delivered }, 'events delivered, but their lease had passed to another worker');
      return delivered;
    });
    return { recorded };
  }

  /** The polling loop's outcome writes still running (stop() waits for them). */
  const recording = new Set<Promise<unknown>>();

  /**
   * One round. `overlap` (the polling loop): answers once the batch is sent, its outcome write
   * tracked in `recording`; otherwise (drainOnce, tests) once that write has committed.
   */
  async function round(overlap = false): Promise<DrainResult> {
    // A database slower than the receivers: at most one outcome write per pipeline waits.
    while (overlap && recording.size >= pipelines) await Promise.race(recording);
    const only = options.tenantIds?.();
    const now = clock.now();
    const leaseUntil = new Date(now.getTime() + leaseMs);
    const token = newId();
    // The deliveries dispatch makes are sent by the round that made them, up to the room its
    // claim left in the batch: leased by dispatch itself (the write a claim would make), so a new
    // event goes out in the round that dispatched it without a claim of its own.
    let leased: ClaimedDelivery[] = [];
    // Where dispatch looks from: its floor, or the whole outbox once a second.
    const dispatchFrom = () => {
      const at = clock.now().getTime();
      const whole = at - floorScannedAt >= DISPATCH_FULL_SCAN_MS;
      if (whole) floorScannedAt = at;
      return whole ? 0 : dispatchFloor;
    };
    const firstFrom = dispatchFrom();
    const dispatchAll = async (room: number, waiting: boolean | undefined) => {
      let n = 0;
      // The claim asked whether anything waits from the floor (in its message): nothing, no dispatch.
      if (waiting === false) return n;
      for (let i = 0; i < 20; i++) {
        // After a full batch more waits: no probe; nor when the claim's probe found something.
        // The polling loop leaves the work to a dispatcher already at it (another pipeline or
        // instance) rather than queue behind it.
        const round = await repo.dispatch(clock.now(), dispatchBatchSize, only, {
          fromSeq: i === 0 ? firstFrom : dispatchFrom(),
          probe: i === 0 && waiting === undefined,
          wait: !overlap,
          ...(i === 0 && room > 0 ? { lease: { limit: room, until: leaseUntil, token } } : {}),
        });
        if (i === 0) leased = round.leased;
        // A full batch: more waits right after it. Less: nothing visible waits from where the
        // look started, so the floor goes past what was dispatched, and never back.
        dispatchFloor = round.dispatched >= dispatchBatchSize ? round.lastSeq! + 1 : Math.max(dispatchFloor, (round.lastSeq ?? -1) + 1);
        n += round.dispatched;
        if (round.dispatched < dispatchBatchSize) break;
      }
      return n;
    };
    // The claim first (due rows: retries and what earlier dispatches left), then dispatch with
    // the batch's room. A full claim (a backlog) leaves no room: dispatch then runs while the
    // batch is sent. A batch never exceeds batchSize, so its sends fit in its lease.
    const whole = now.getTime() - claimScannedAt >= DISPATCH_FULL_SCAN_MS;
    if (whole) claimScannedAt = now.getTime();
    const claim = await repo.claimDue(now, batchSize, leaseUntil, token, only, whole ? undefined : claimFloor, { probeFromSeq: firstFrom });
    const claimed = claim.rows;
    const leasedUpTo = claimed.length >= batchSize ? claim.lastDueAt : now;
    const from = leasedUpTo && new Date(leasedUpTo.getTime() - CLAIM_FLOOR_MARGIN_MS);
    if (from && (!claimFloor || from > claimFloor)) claimFloor = from;
    const room = batchSize - claimed.length;
    const dispatching = dispatchAll(room, claim.waiting);
    dispatching.catch(() => undefined); // awaited below; not unhandled while the batch is sent
    if (room > 0) await dispatching;
    const rows = leased.length === 0 ? claimed : claimed.length === 0 ? leased : [...claimed, ...leased].sort((a, b) => a.eventSeq - b.eventSeq);
    // One lease (until, token) for the claim's rows and dispatch's.
    let delivered = 0;
    if (rows.length > 0) {
      const { recorded } = await deliverBatch(rows, leaseUntil);
      if (overlap) {
        const tracked = recorded.catch((error: unknown) => logger.error({ error: describeOutboundError(error) }, 'could not record the delivered events; their leases bring them back'));
        recording.add(tracked);
        void tracked.finally(() => recording.delete(tracked));
      } else {
        delivered = await recorded;
      }
    }
    const dispatched = await dispatching;
    let pruned = 0;
    const at = clock.now().getTime();
    if (at - lastPrune >= pruneIntervalMs) {
      pruned = await repo.pruneDelivered(new Date(at - retentionMs), 1000, only);
      // A full prune leaves more to do: the next round prunes again.
      lastPrune = pruned >= 1000 ? -Infinity : at;
    }
    return { dispatched, attempted: rows.length, delivered, pruned };
  }

  function drainOnce(): Promise<DrainResult> {
    // One round at a time per worker, whether started by the timer or by a test.
    const next = tail.then(() => round());
    tail = next.catch(() => undefined);
    return next;
  }

  // start(): `pipelines` loops, each claiming its own batch (SKIP LOCKED keeps them apart),
  // so one batch's database round trips overlap another's requests.
  const timers = new Set<NodeJS.Timeout>();
  const loops = new Set<Promise<unknown>>();

  function schedule(delayMs: number): void {
    if (!running) return;
    const timer = setTimeout(() => {
      timers.delete(timer);
      const loop = round(true).then(
        (result) => schedule(result.attempted >= batchSize ? 0 : pollIntervalMs),
        (error: unknown) => {
          logger.error({ error: describeOutboundError(error) }, 'event outbox poll failed');
          schedule(pollIntervalMs);
        },
      );
      loops.add(loop);
      void loop.finally(() => loops.delete(loop));
    }, delayMs);
    timer.unref();
    timers.add(timer);
  }

  return {
    start() {
      if (running) return;
      running = true;
      for (let i = 0; i < pipelines; i++) schedule(i * Math.floor(pollIntervalMs / pipelines));
    },
    async stop() {
      running = false;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      await Promise.allSettled([...loops]);
      await Promise.allSettled([...recording]);
      await tail;
    },
    drainOnce,
    async drainAll(maxRounds = 100) {
      const total: DrainResult = { dispatched: 0, attempted: 0, delivered: 0, pruned: 0 };
      for (let i = 0; i < maxRounds; i++) {
        const r = await drainOnce();
        total.dispatched += r.dispatched;
        total.attempted += r.attempted;
        total.delivered += r.delivered;
        total.pruned += r.pruned;
        if (r.attempted === 0) break;
      }
      return total;
    },
  };
}
