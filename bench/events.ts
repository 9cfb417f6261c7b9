// The event-delivery row: events delivered per second by the events module's worker (dispatch,
// leased batches, Standard Webhooks signatures, the SSRF-guarded keep-alive agent) to a local
// receiver, beside a bare HTTP POST loop to the same receiver with the same concurrency.
import { request, Agent } from 'node:http';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config.js';
import { createContainer } from '../src/container.js';
import { outboxEvents } from '../src/platform/events/table.js';
import { sql } from 'drizzle-orm';
import { newId } from '../src/platform/clock.js';
import type { EventsServices } from '../src/modules/events/module.js';
import { startServer } from './processes.js';
import { postgresCpuMs, processCpuMs } from './machine.js';

export interface EventsBenchResult {
  events: number;
  endpoints: number;
  seconds: number;
  eventsPerSec: number;
  /** The mean of the bare loop's rate before and after the worker's run. */
  ceilingPerSec: number;
  ceilingBefore: number;
  ceilingAfter: number;
  concurrency: number;
  batchSize: number;
  /** CPU per event of the worker's process, PostgreSQL's backends and the receiver (µs); of the loop's client and receiver per request. */
  cpu?: { workerUs: number; dbUs?: number; receiverUs: number; loopClientUs: number; loopReceiverUs: number };
}

const CONCURRENCY = 16;
const BATCH = 128;

/** A body the size of a typical event: {type, timestamp, data}. */
const sampleBody = () =>
  JSON.stringify({ type: 'user.created', timestamp: new Date().toISOString(), data: { userId: newId(), email: 'someone@bench.example' } });

/** `concurrency` loops each POSTing and awaiting the answer, for `seconds`: requests per second. */
async function postLoop(url: string, seconds: number, concurrency: number): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const until = Date.now() + seconds * 1000;
  let done = 0;
  const post = () =>
    new Promise<void>((resolve, reject) => {
      const body = sampleBody();
      const req = request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
        res.resume();
        res.on('end', resolve);
      });
      req.on('error', reject);
      req.end(body);
    });
  const started = Date.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < until) {
        await post();
        done++;
      }
    }),
  );
  agent.destroy();
  return done / ((Date.now() - started) / 1000);
}

export async function eventsPhase(
  env: Record<string, string | undefined>,
  port: number,
  eventCount: number,
  seconds: number,
  log: (line: string) => void,
  databaseName?: string,
): Promise<EventsBenchResult> {
  const receiver = await startServer({ name: 'event receiver', script: fileURLToPath(new URL('./events-receiver.js', import.meta.url)), env: { PORT: String(port) }, port });
  const url = `http://127.0.0.1:${port}/hook`;
  try {
    await postLoop(url, 1, CONCURRENCY); // warm-up
    // The loop runs before the worker and again after it (the machine's speed drifts within a
    // minute); the ratio uses their mean.
    const loopCpu = { client: processCpuMs(process.pid), receiver: processCpuMs(receiver.pid) };
    const loopStarted = Date.now();
    const ceilingBefore = await postLoop(url, seconds, CONCURRENCY);
    const loopRequests = (ceilingBefore * (Date.now() - loopStarted)) / 1000;
    const loopClientUs = ((processCpuMs(process.pid) - loopCpu.client) * 1000) / loopRequests;
    const loopReceiverUs = ((processCpuMs(receiver.pid) - loopCpu.receiver) * 1000) / loopRequests;
    log(`  ceiling: bare HTTP POST loop (${CONCURRENCY} in flight), before: ${ceilingBefore.toFixed(0)}/s, CPU/request client ${loopClientUs.toFixed(0)} µs + receiver ${loopReceiverUs.toFixed(0)} µs`);

    const config = loadConfig({ ...env, LOG_LEVEL: 'warn', EVENTS_ALLOW_PRIVATE_URLS: 'on' });
    const container = await createContainer({ config });
    try {
      const tenant = await container.tenants.createTenant(`bench-events-${newId()}`);
      const events = container.modules.find((m) => m.name === 'events')!.services as EventsServices;
      await events.events.create(tenant.tenantId, { url }, { type: 'system', id: null });
      for (let i = 0; i < eventCount; i += 1000) {
        const rows = Array.from({ length: Math.min(1000, eventCount - i) }, () => ({
          id: newId(),
          tenantId: tenant.tenantId,
          type: 'user.created',
          payload: { userId: newId(), email: 'someone@bench.example' },
        }));
        await container.database.db.insert(outboxEvents).values(rows);
      }
      // The worker as the service runs it: start() (its pipelines on their timers) until every
      // delivery is recorded. Its own count of recorded deliveries (onOutcome, called as each
      // batch's outcome commits) says when; a count of the table every few milliseconds cost
      // PostgreSQL a scan of the tenant's deliveries each time, on the cores the worker and the
      // database share. The database then confirms every delivery is done.
      let recorded = 0;
      let allRecorded!: () => void;
      const done = new Promise<void>((resolve) => (allRecorded = resolve));
      const worker = events.createWorker({
        tenantIds: () => [tenant.tenantId],
        batchSize: BATCH,
        concurrency: CONCURRENCY,
        pollIntervalMs: 50,
        onOutcome: (outcome, count) => {
          if (outcome === 'delivered' && (recorded += count) >= eventCount) allRecorded();
        },
      });
      const deliveredCount = async () => {
        const result = await container.database.db.execute(
          sql`select count(*)::int as n from event_deliveries where tenant_id = ${tenant.tenantId}::uuid and status = 'delivered'`,
        );
        return Number((result as unknown as { rows: Array<{ n: number }> }).rows[0]!.n);
      };
      const cpuBefore = { worker: processCpuMs(process.pid), db: databaseName ? postgresCpuMs(databaseName) : undefined, receiver: processCpuMs(receiver.pid) };
      const started = Date.now();
      worker.start();
      let deadline: NodeJS.Timeout | undefined;
      await Promise.race([
        done,
        new Promise((_, reject) => (deadline = setTimeout(() => reject(new Error('event delivery did not finish in 10 minutes')), 600_000))),
      ]).finally(() => clearTimeout(deadline));
      const elapsed = (Date.now() - started) / 1000;
      const perEvent = (ms: number) => (ms * 1000) / eventCount;
      const cpu = {
        workerUs: perEvent(processCpuMs(process.pid) - cpuBefore.worker),
        ...(databaseName && cpuBefore.db !== undefined ? { dbUs: perEvent(postgresCpuMs(databaseName) - cpuBefore.db) } : {}),
        receiverUs: perEvent(processCpuMs(receiver.pid) - cpuBefore.receiver),
        loopClientUs,
        loopReceiverUs,
      };
      await worker.stop();
      const stored = await deliveredCount();
      if (stored !== eventCount) throw new Error(`the worker recorded ${recorded} deliveries; the database holds ${stored} of ${eventCount}`);
      const eventsPerSec = eventCount / elapsed;
      log(`  events delivered: ${eventCount} in ${elapsed.toFixed(1)} s: ${eventsPerSec.toFixed(0)}/s, CPU/event worker ${cpu.workerUs.toFixed(0)} µs + PostgreSQL ${cpu.dbUs?.toFixed(0) ?? '-'} µs + receiver ${cpu.receiverUs.toFixed(0)} µs`);
      const ceilingAfter = await postLoop(url, seconds, CONCURRENCY);
      log(`  ceiling: bare HTTP POST loop (${CONCURRENCY} in flight), after: ${ceilingAfter.toFixed(0)}/s`);
      const ceilingPerSec = (ceilingBefore + ceilingAfter) / 2;
      return { events: eventCount, endpoints: 1, seconds: elapsed, eventsPerSec, ceilingPerSec, ceilingBefore, ceilingAfter, concurrency: CONCURRENCY, batchSize: BATCH, cpu };
    } finally {
      await container.close();
    }
  } finally {
    await receiver.stop();
  }
}

export function eventsTable(r: EventsBenchResult): string {
  const n0 = (v: number) => Math.round(v).toLocaleString('en');
  return [
    '| event delivery to a local receiver | per second | ratio to ceiling |',
    '|---|---:|---:|',
    `| events delivered by the worker (${n0(r.events)} events, 1 endpoint; dispatch, 2 pipelines of leased batches of ${r.batchSize}, ${r.concurrency} in flight each, signed, SSRF-guarded agent) | ${n0(r.eventsPerSec)} | ${((r.eventsPerSec / r.ceilingPerSec) * 100).toFixed(0)}% |`,
    `| ceiling: bare HTTP POST loop to the same receiver (${r.concurrency} in flight, keep-alive; before and after the worker: ${n0(r.ceilingBefore)} and ${n0(r.ceilingAfter)}, mean) | ${n0(r.ceilingPerSec)} | — |`,
  ].join('\n');
}
