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
import pg from 'pg';
import { newSigningSecret, signEvent, signingKey } from '../src/modules/events/signing.js';
import { parseOutboundUrl, postOutboundTo } from '../src/platform/http/outbound.js';
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
  /** What bounds the row (PostgreSQL only): see deliveryBound. */
  bound?: { perSec: number; cpu: { senderUs: number; dbUs: number; receiverUs: number } };
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

const BOUND_PIPELINES = 2;

/**
 * What bounds the worker's row: the same requests (signEvent, postOutboundTo under the same
 * policy, 16 in flight in each of 2 pipelines) and the least a delivery writes when it must
 * survive a crash and share its queue between instances: per batch of 128, one statement leasing
 * the oldest pending rows (FOR UPDATE SKIP LOCKED) and reading their events, and one recording
 * the delivered ones under the lease. Its own table (bench_bound_deliveries: the event in the
 * row, a primary key and a pending index in lease order), filled before it starts; no fan-out to
 * endpoints, no stream positions, no retry bookkeeping.
 */
async function deliveryBound(databaseUrl: string, databaseName: string, url: string, events: number, receiverPid: number) {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 4 });
  try {
    await pool.query(`create table if not exists bench_bound_deliveries (id bigserial primary key, event_id uuid not null, type text not null, payload jsonb not null,
      created_at timestamptz not null, status text not null, attempts int not null, lease_until timestamptz not null, lease_token uuid, delivered_at timestamptz)`);
    await pool.query("create index if not exists bench_bound_deliveries_due on bench_bound_deliveries (lease_until, id) where status = 'pending'");
    await pool.query('truncate bench_bound_deliveries');
    await pool.query(
      `insert into bench_bound_deliveries (event_id, type, payload, created_at, status, attempts, lease_until)
       select gen_random_uuid(), 'user.created', jsonb_build_object('userId', gen_random_uuid(), 'email', 'someone@bench.example'), now(), 'pending', 0, now()
       from generate_series(1, $1)`,
      [events],
    );
    await pool.query('analyze bench_bound_deliveries');
    const keys = [signingKey(newSigningSecret())];
    const policy = { allowPrivate: true };
    const target = parseOutboundUrl(url, policy);
    let delivered = 0;
    const pipeline = async () => {
      for (;;) {
        const token = newId();
        const { rows } = await pool.query<{ id: string; event_id: string; type: string; payload: Record<string, unknown>; created_at: Date }>(
          `with due as materialized (
             select id from bench_bound_deliveries where status = 'pending' and lease_until <= now() order by lease_until, id limit $2 for update skip locked)
           update bench_bound_deliveries d set attempts = d.attempts + 1, lease_until = now() + interval '60 seconds', lease_token = $1
           from due where d.id = due.id
           returning d.id, d.event_id, d.type, d.payload, d.created_at`,
          [token, BATCH],
        );
        if (rows.length === 0) return;
        const ok: string[] = [];
        let next = 0;
        await Promise.all(
          Array.from({ length: CONCURRENCY }, async () => {
            while (next < rows.length) {
              const row = rows[next++]!;
              const signed = signEvent({ id: row.event_id, type: row.type, createdAt: row.created_at, payload: row.payload }, keys, new Date());
              const { status } = await postOutboundTo(target, { headers: signed.headers, body: signed.body, timeoutMs: 5_000 }, policy);
              if (status >= 200 && status < 300) ok.push(row.id);
            }
          }),
        );
        const recorded = await pool.query(
          "update bench_bound_deliveries set status = 'delivered', delivered_at = now(), lease_token = null where id = any($1::bigint[]) and lease_token = $2 and status = 'pending'",
          [ok, token],
        );
        delivered += recorded.rowCount ?? 0;
      }
    };
    const before = { sender: processCpuMs(process.pid), db: postgresCpuMs(databaseName), receiver: processCpuMs(receiverPid) };
    const started = Date.now();
    await Promise.all(Array.from({ length: BOUND_PIPELINES }, pipeline));
    const seconds = (Date.now() - started) / 1000;
    if (delivered !== events) throw new Error(`the bound delivered ${delivered} of ${events}`);
    const per = (ms: number) => (ms * 1000) / events;
    return {
      perSec: events / seconds,
      cpu: { senderUs: per(processCpuMs(process.pid) - before.sender), dbUs: per(postgresCpuMs(databaseName) - before.db), receiverUs: per(processCpuMs(receiverPid) - before.receiver) },
    };
  } finally {
    await pool.query('drop table if exists bench_bound_deliveries').catch(() => undefined);
    await pool.end();
  }
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
      // The worker runs across tenants: a queue an earlier run of this row left behind (pending
      // deliveries, undispatched events of its tenants) would be delivered in this one's and
      // counted with it. Gone first; only the row's own tenants are touched (a DATABASE_URL is
      // used as it is given).
      const benchTenants = sql`(select id from tenants where name like 'bench-events-%')`;
      await container.database.db.execute(sql`delete from event_deliveries where status = 'pending' and tenant_id in ${benchTenants}`);
      await container.database.db.execute(sql`update outbox_events set delivered_at = now() where delivered_at is null and tenant_id in ${benchTenants}`);
      const tenant = await container.tenants.createTenant(`bench-events-${newId()}`);
      const events = container.modules.find((m) => m.name === 'events')!.services as EventsServices;
      await events.events.create(tenant.tenantId, { url }, { type: 'system', id: null });
      const insertEvents = async (count: number) => {
        for (let i = 0; i < count; i += 1000) {
          const rows = Array.from({ length: Math.min(1000, count - i) }, () => ({
            id: newId(),
            tenantId: tenant.tenantId,
            type: 'user.created',
            payload: { userId: newId(), email: 'someone@bench.example' },
          }));
          await container.database.db.insert(outboxEvents).values(rows);
        }
      };
      // The worker as the service runs it: start() (its pipelines on their timers) until every
      // delivery is recorded. Its own count of recorded deliveries (onOutcome, called as each
      // batch's outcome commits) says when; a count of the table every few milliseconds cost
      // PostgreSQL a scan of the tenant's deliveries each time, on the cores the worker and the
      // database share. The database then confirms every delivery is done. Across tenants, as the
      // service's worker runs (narrowed to one tenant, as test harnesses run it, each pick and
      // probe read the pending index ANDed with the tenant's index of every event it ever had:
      // 20 of a dispatch's 37 ms); only this tenant has an endpoint.
      let recorded = 0;
      let wanted = 0;
      let allRecorded: () => void = () => undefined;
      const worker = events.createWorker({
        batchSize: BATCH,
        concurrency: CONCURRENCY,
        pollIntervalMs: 50,
        onOutcome: (outcome, count) => {
          if (outcome === 'delivered' && (recorded += count) >= wanted) allRecorded();
        },
      });
      const deliveredCount = async () => {
        const result = await container.database.db.execute(
          sql`select count(*)::int as n from event_deliveries where tenant_id = ${tenant.tenantId}::uuid and status = 'delivered'`,
        );
        return Number((result as unknown as { rows: Array<{ n: number }> }).rows[0]!.n);
      };
      const deliverAll = async (count: number) => {
        recorded = 0;
        wanted = count;
        const done = new Promise<void>((resolve) => (allRecorded = resolve));
        const started = Date.now();
        worker.start();
        let deadline: NodeJS.Timeout | undefined;
        await Promise.race([
          done,
          new Promise((_, reject) => (deadline = setTimeout(() => reject(new Error('event delivery did not finish in 10 minutes')), 600_000))),
        ]).finally(() => clearTimeout(deadline));
        const seconds = (Date.now() - started) / 1000;
        await worker.stop();
        return seconds;
      };
      // A warm-up first, as every HTTP row has one: the same worker delivers a quarter as many
      // events beforehand, so the measured run finds its code compiled and its connections open
      // (measured cold, 10,000 events took 1.7 s at 152 µs of the worker's CPU an event; warm,
      // 99–115 µs). The bound runs after the worker, warm from it, and gets its own warm-up too.
      const warmup = Math.ceil(eventCount / 4);
      await insertEvents(warmup);
      await deliverAll(warmup);
      await insertEvents(eventCount);
      // The measured run starts from vacuumed tables, as autovacuum would leave them between
      // bursts: this machine's PostgreSQL runs with autovacuum off (conf.d/90-ci.conf), so the
      // warm-up's dead rows (and, on a DATABASE_URL kept between runs, every earlier run's) would
      // otherwise stay in the queue's indexes for the measured run to step over: 3.8 ms a claim
      // behind 600,000 of them. What the measured run itself leaves behind, it steps over.
      await container.database.db.execute(sql`vacuum analyze event_deliveries, outbox_events`);
      const cpuBefore = { worker: processCpuMs(process.pid), db: databaseName ? postgresCpuMs(databaseName) : undefined, receiver: processCpuMs(receiver.pid) };
      const elapsed = await deliverAll(eventCount);
      const perEvent = (ms: number) => (ms * 1000) / eventCount;
      const cpu = {
        workerUs: perEvent(processCpuMs(process.pid) - cpuBefore.worker),
        ...(databaseName && cpuBefore.db !== undefined ? { dbUs: perEvent(postgresCpuMs(databaseName) - cpuBefore.db) } : {}),
        receiverUs: perEvent(processCpuMs(receiver.pid) - cpuBefore.receiver),
        loopClientUs,
        loopReceiverUs,
      };
      const stored = await deliveredCount();
      if (stored !== warmup + eventCount) throw new Error(`the worker recorded ${recorded} deliveries; the database holds ${stored} of ${warmup + eventCount}`);
      const eventsPerSec = eventCount / elapsed;
      log(`  events delivered: ${eventCount} in ${elapsed.toFixed(1)} s: ${eventsPerSec.toFixed(0)}/s, CPU/event worker ${cpu.workerUs.toFixed(0)} µs + PostgreSQL ${cpu.dbUs?.toFixed(0) ?? '-'} µs + receiver ${cpu.receiverUs.toFixed(0)} µs`);
      const dbUrl = env.DATABASE_URL;
      if (dbUrl && databaseName) await deliveryBound(dbUrl, databaseName, url, warmup, receiver.pid);
      const bound = dbUrl && databaseName ? await deliveryBound(dbUrl, databaseName, url, eventCount, receiver.pid) : undefined;
      if (bound) {
        log(`  bound (the same signed requests; lease and record a batch of ${BATCH}, one statement each): ${bound.perSec.toFixed(0)}/s, CPU/event sender ${bound.cpu.senderUs.toFixed(0)} µs + PostgreSQL ${bound.cpu.dbUs.toFixed(0)} µs + receiver ${bound.cpu.receiverUs.toFixed(0)} µs`);
      }
      const ceilingAfter = await postLoop(url, seconds, CONCURRENCY);
      log(`  ceiling: bare HTTP POST loop (${CONCURRENCY} in flight), after: ${ceilingAfter.toFixed(0)}/s`);
      const ceilingPerSec = (ceilingBefore + ceilingAfter) / 2;
      return { events: eventCount, endpoints: 1, seconds: elapsed, eventsPerSec, ceilingPerSec, ceilingBefore, ceilingAfter, concurrency: CONCURRENCY, batchSize: BATCH, cpu, ...(bound ? { bound } : {}) };
    } finally {
      await container.close();
    }
  } finally {
    await receiver.stop();
  }
}

export function eventsTable(r: EventsBenchResult): string {
  const n0 = (v: number) => Math.round(v).toLocaleString('en');
  const c = r.cpu;
  const rowCpu = c ? `${n0(c.workerUs)} + ${c.dbUs === undefined ? '-' : n0(c.dbUs)} + ${n0(c.receiverUs)}` : '-';
  const loopCpu = c ? `${n0(c.loopClientUs)} + - + ${n0(c.loopReceiverUs)} (before)` : '-';
  return [
    '| event delivery to a local receiver | per second | ratio to ceiling | CPU µs per event: sender + PostgreSQL + receiver |',
    '|---|---:|---:|---:|',
    `| events delivered by the worker (${n0(r.events)} events, 1 endpoint; dispatch, 2 pipelines of leased batches of ${r.batchSize}, ${r.concurrency} in flight each, signed, SSRF-guarded agent) | ${n0(r.eventsPerSec)} | ${((r.eventsPerSec / r.ceilingPerSec) * 100).toFixed(0)}% | ${rowCpu} |`,
    `| ceiling: bare HTTP POST loop to the same receiver (${r.concurrency} in flight, keep-alive; before and after the worker: ${n0(r.ceilingBefore)} and ${n0(r.ceilingAfter)}, mean) | ${n0(r.ceilingPerSec)} | — | ${loopCpu} |`,
    ...(r.bound
      ? [
          `| bound: the same signed requests through the same client, 2 pipelines of ${r.batchSize}; per batch one statement leasing the oldest pending rows with their events and one recording them delivered (a table of its own; no fan-out, no stream positions) | ${n0(r.bound.perSec)} | ${((r.bound.perSec / r.ceilingPerSec) * 100).toFixed(0)}% | ${n0(r.bound.cpu.senderUs)} + ${n0(r.bound.cpu.dbUs)} + ${n0(r.bound.cpu.receiverUs)} |`,
        ]
      : []),
  ].join('\n');
}
