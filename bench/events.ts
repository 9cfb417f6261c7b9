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

export interface EventsRound {
  /** The bare loop's rate, the worker's, its design's done bare, the marking design's and the bound's, in this round (per second). */
  loopPerSec: number;
  eventsPerSec: number;
  boundPerSec?: number;
  designPerSec?: number;
  markingPerSec?: number;
}

export interface EventsBenchResult {
  events: number;
  endpoints: number;
  /** The worker's seconds over all rounds. */
  seconds: number;
  eventsPerSec: number;
  /** The bare loop's rate over all its rounds (requests over seconds). */
  ceilingPerSec: number;
  /** Each round: the loop, the worker, its design done bare, the marking design and the bound, one after the other. */
  rounds: EventsRound[];
  concurrency: number;
  batchSize: number;
  /** CPU per event of the worker's process, PostgreSQL's backends and the receiver (µs); of the loop's client and receiver per request. */
  cpu?: { workerUs: number; dbUs?: number; receiverUs: number; loopClientUs: number; loopReceiverUs: number };
  /** What bounds the row (PostgreSQL only): see deliveryBound. */
  bound?: BoundResult;
  /** The worker's design done bare (PostgreSQL only): see designBound. */
  design?: BoundResult;
  /** The least a design writes that marks each event dispatched (PostgreSQL only): see markingBound. */
  marking?: BoundResult;
}

export interface BoundResult {
  perSec: number;
  cpu: { senderUs: number; dbUs: number; receiverUs: number };
}

const CONCURRENCY = 16;
const BATCH = 128;
/** Rounds of the row: each one the bare loop, the worker, its design done bare, the marking design and the bound, one after the other. */
export const EVENTS_ROUNDS = 3;

/** A body the size of a typical event: {type, timestamp, data}. */
const sampleBody = () =>
  JSON.stringify({ type: 'user.created', timestamp: new Date().toISOString(), data: { userId: newId(), email: 'someone@bench.example' } });

/** `concurrency` loops each POSTing and awaiting the answer, for `seconds`: requests done and the seconds they took. */
async function postLoop(url: string, seconds: number, concurrency: number): Promise<{ requests: number; seconds: number }> {
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
  return { requests: done, seconds: (Date.now() - started) / 1000 };
}

const BOUND_PIPELINES = 2;

/** CPU (ms) of the processes a segment is measured on, and of the database's backends. */
interface CpuMark {
  sender: number;
  db?: number;
  receiver: number;
}

/** Running sums of a side's segments: units done, seconds, CPU ms. */
class Tally {
  units = 0;
  seconds = 0;
  cpu = { sender: 0, db: 0, receiver: 0 };
  constructor(private readonly pids: { receiver: number; database?: string }) {}
  mark(): CpuMark {
    return {
      sender: processCpuMs(process.pid),
      ...(this.pids.database ? { db: postgresCpuMs(this.pids.database) } : {}),
      receiver: processCpuMs(this.pids.receiver),
    };
  }
  /** Adds a segment that started at `before`: `units` done in `seconds`; answers the segment's rate. */
  add(before: CpuMark, units: number, seconds: number): number {
    const after = this.mark();
    this.units += units;
    this.seconds += seconds;
    this.cpu.sender += after.sender - before.sender;
    this.cpu.db += (after.db ?? 0) - (before.db ?? 0);
    this.cpu.receiver += after.receiver - before.receiver;
    return units / seconds;
  }
  get perSec(): number {
    return this.units / this.seconds;
  }
  /** CPU µs per unit. */
  us(ms: number): number {
    return (ms * 1000) / this.units;
  }
}

/** Signs and POSTs each row as the worker does (16 in flight, the same client and policy): the rows answered 2xx. */
function bareSender(url: string) {
  const keys = [signingKey(newSigningSecret())];
  const policy = { allowPrivate: true };
  const target = parseOutboundUrl(url, policy);
  return async <T extends { event_id: string; type: string; payload: Record<string, unknown>; created_at: Date }>(rows: T[]): Promise<T[]> => {
    const ok: T[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < rows.length) {
          const row = rows[next++]!;
          const signed = signEvent({ id: row.event_id, type: row.type, createdAt: row.created_at, payload: row.payload }, keys, new Date());
          const { status } = await postOutboundTo(target, { headers: signed.headers, body: signed.body, timeoutMs: 5_000 }, policy);
          if (status >= 200 && status < 300) ok.push(row);
        }
      }),
    );
    return ok;
  };
}

/** A bound's run: fills its tables with `events` to deliver, then delivers them all; the seconds the delivery took. */
export interface BoundRun {
  run(events: number, segment?: (started: () => void) => Promise<void>): Promise<number>;
  close(): Promise<void>;
}

/** Times `deliver` from the moment `segment` calls its `started`; checks that it delivered every event. */
async function timedRun(events: number, segment: (started: () => void) => Promise<void>, deliver: () => Promise<number>): Promise<number> {
  let started = 0;
  await segment(() => (started = Date.now()));
  const delivered = await deliver();
  const seconds = (Date.now() - started) / 1000;
  if (delivered !== events) throw new Error(`the bound delivered ${delivered} of ${events}`);
  return seconds;
}

const startNow = async (started: () => void) => started();

/**
 * What bounds the worker's row: the same requests (signEvent, postOutboundTo under the same
 * policy, 16 in flight in each of 2 pipelines) and the least a delivery writes when it must
 * survive a crash and share its queue between instances: per batch of 128, one statement leasing
 * the oldest pending rows (FOR UPDATE SKIP LOCKED) and reading their events, and one recording
 * the delivered ones under the lease. Its own table (bench_bound_deliveries: the event in the
 * row, a primary key and a pending index in lease order), filled before each run; no fan-out to
 * endpoints, no stream positions, no retry bookkeeping.
 */
async function deliveryBound(databaseUrl: string, url: string): Promise<BoundRun> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 4 });
  await pool.query(`create table if not exists bench_bound_deliveries (id bigserial primary key, event_id uuid not null, type text not null, payload jsonb not null,
    created_at timestamptz not null, status text not null, attempts int not null, lease_until timestamptz not null, lease_token uuid, delivered_at timestamptz)`);
  await pool.query("create index if not exists bench_bound_deliveries_due on bench_bound_deliveries (lease_until, id) where status = 'pending'");
  const send = bareSender(url);
  return {
    async run(events, segment = startNow) {
      await pool.query('truncate bench_bound_deliveries');
      await pool.query(
        `insert into bench_bound_deliveries (event_id, type, payload, created_at, status, attempts, lease_until)
         select gen_random_uuid(), 'user.created', jsonb_build_object('userId', gen_random_uuid(), 'email', 'someone@bench.example'), now(), 'pending', 0, now()
         from generate_series(1, $1)`,
        [events],
      );
      await pool.query('vacuum analyze bench_bound_deliveries');
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
          const ok = await send(rows);
          const recorded = await pool.query(
            "update bench_bound_deliveries set status = 'delivered', delivered_at = now(), lease_token = null where id = any($1::bigint[]) and lease_token = $2 and status = 'pending'",
            [ok.map((r) => r.id), token],
          );
          delivered += recorded.rowCount ?? 0;
        }
      };
      return timedRun(events, segment, async () => {
        await Promise.all(Array.from({ length: BOUND_PIPELINES }, pipeline));
        return delivered;
      });
    },
    async close() {
      await pool.query('drop table if exists bench_bound_deliveries').catch(() => undefined);
      await pool.end();
    },
  };
}

const DESIGN_DISPATCH = 500;

type SentRow = { tenant_id: string; endpoint_id: string; event_id: string; type: string; payload: Record<string, unknown>; created_at: Date };

/**
 * Tables of their own with the service's columns, indexes and foreign key (`LIKE outbox_events`
 * and `LIKE event_deliveries`, every index included; an endpoints table with the columns
 * dispatch and the key read), named `<prefix>_outbox`, `_deliveries`, `_endpoints`, and a
 * positions sequence; one endpoint. `fill` empties them and queues `events` undispatched events,
 * vacuumed; `record` writes a batch's delivered rows under its lease, as the service's record
 * does (by primary key); the pool runs the service's claim's planner settings (runClaim: sorts
 * and JIT off) for every statement: without them the claim, planned from statistics taken before
 * its table filled, read every due row and sorted them (3.3 ms a claim of 128 behind 8,000).
 */
async function serviceShapedTables(databaseUrl: string, url: string, prefix: string) {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 4, options: '-c enable_sort=off -c jit=off' });
  const drop = () => pool.query(`drop table if exists ${prefix}_deliveries, ${prefix}_outbox, ${prefix}_endpoints; drop sequence if exists ${prefix}_positions`);
  await drop();
  await pool.query(`
    create table ${prefix}_outbox (like outbox_events including all excluding defaults);
    create table ${prefix}_endpoints (tenant_id uuid not null, id uuid not null, url text not null, types jsonb not null, enabled boolean not null, primary key (tenant_id, id));
    create table ${prefix}_deliveries (like event_deliveries including all,
      foreign key (tenant_id, endpoint_id) references ${prefix}_endpoints (tenant_id, id) on delete cascade);
    create sequence ${prefix}_positions`);
  const tenantId = newId();
  await pool.query(`insert into ${prefix}_endpoints values ($1, $2, $3, '[]', true)`, [tenantId, newId(), url]);
  let seq = 0;
  return {
    pool,
    async fill(events: number) {
      await pool.query(`truncate ${prefix}_deliveries, ${prefix}_outbox`);
      await pool.query(
        `insert into ${prefix}_outbox (seq, id, tenant_id, type, payload, created_at)
         select $2::bigint + i, gen_random_uuid(), $3, 'user.created', jsonb_build_object('userId', gen_random_uuid(), 'email', 'someone@bench.example'), now()
         from generate_series(1, $1) i`,
        [events, seq, tenantId],
      );
      seq += events;
      await pool.query(`vacuum analyze ${prefix}_outbox, ${prefix}_deliveries, ${prefix}_endpoints`);
    },
    /** Records `ok` delivered under `token`: how many it recorded. */
    async record(ok: SentRow[], token: string): Promise<number> {
      const recorded = await pool.query(
        `update ${prefix}_deliveries d set status = 'delivered', delivered_at = now(), lease_token = null, last_status = 200, last_error = null
         from unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[]) as k (tenant_id, endpoint_id, event_id, from_status)
         where d.tenant_id = k.tenant_id and d.endpoint_id = k.endpoint_id and d.event_id = k.event_id and d.status = k.from_status and d.lease_token = $5`,
        // The status each row must still have is a column of the list, as in the service's
        // record (markDeliveredStatement): as a constant, the planner reads the due index.
        [ok.map((r) => r.tenant_id), ok.map((r) => r.endpoint_id), ok.map((r) => r.event_id), ok.map(() => 'pending'), token],
      );
      return recorded.rowCount ?? 0;
    },
    async close() {
      await drop().catch(() => undefined);
      await pool.end();
    },
  };
}

/** A side on service-shaped tables: each run fills them, then times `deliver` (the rows it recorded). */
async function serviceShapedSide(
  databaseUrl: string,
  url: string,
  prefix: string,
  deliver: (tables: Awaited<ReturnType<typeof serviceShapedTables>>, send: ReturnType<typeof bareSender>) => Promise<number>,
): Promise<BoundRun> {
  const tables = await serviceShapedTables(databaseUrl, url, prefix);
  const send = bareSender(url);
  return {
    async run(events, segment = startNow) {
      await tables.fill(events);
      return timedRun(events, segment, () => deliver(tables, send));
    },
    close: () => tables.close(),
  };
}

/**
 * The worker's design done bare: what a delivery writes when, besides surviving a crash and
 * sharing its queue, each event gets its place in the pull stream and a row in each matching
 * endpoint's delivery log, and dispatch runs ahead of the sends (a slow endpoint holds back
 * neither the stream nor other endpoints). Service-shaped tables (serviceShapedTables), filled
 * with undispatched events before each run. One dispatcher, ahead of the sends: per 500 events
 * one statement taking the dispatch lock, picking the oldest undispatched events, inserting a
 * pending delivery per matching endpoint and giving each event its stream position. Two
 * pipelines: per batch of 128 one statement leasing the oldest due deliveries with their events,
 * the same requests as the worker's, and one statement recording the delivered ones under the
 * lease. What it leaves out of the service's worker: drizzle, the rows' mapping, the floors of
 * the claim and of dispatch, dispatch's probe and its leasing into the round's room, the retry
 * and failure paths, pruning.
 */
async function designBound(databaseUrl: string, url: string): Promise<BoundRun> {
  return serviceShapedSide(databaseUrl, url, 'bench_design', async ({ pool, record }, send) => {
    let delivered = 0;
    let dispatching = true;
    const dispatcher = async () => {
      for (;;) {
        const { rows } = await pool.query<{ dispatched: number }>(
          `with lock as materialized (select pg_advisory_xact_lock(hashtext('bench.design.dispatch'))::text = '' as held),
           picked as (
             select seq from bench_design_outbox where (select held from lock) and delivered_at is null order by seq limit $1 for update skip locked),
           fanned as (
             insert into bench_design_deliveries (tenant_id, endpoint_id, event_id, event_seq, status, attempts, next_attempt_at, queued_at)
             select o.tenant_id, e.id, o.id, o.seq, 'pending', 0, now(), now()
             from picked p join bench_design_outbox o on o.seq = p.seq
             join bench_design_endpoints e on e.tenant_id = o.tenant_id and e.enabled and (jsonb_array_length(e.types) = 0 or e.types @> to_jsonb(o.type))
             returning 1),
           numbered as (select s.seq, nextval('bench_design_positions') as pos from (select seq from picked order by seq) s),
           marked as (update bench_design_outbox o set delivered_at = now(), position = n.pos from numbered n where o.seq = n.seq returning 1)
           select (select count(*) from marked)::int as dispatched, (select count(*) from fanned)::int as fanned`,
          [DESIGN_DISPATCH],
        );
        if (rows[0]!.dispatched < DESIGN_DISPATCH) break;
      }
      dispatching = false;
    };
    const pipeline = async () => {
      for (;;) {
        const token = newId();
        const { rows } = await pool.query<SentRow>(
          `with due as materialized (
             select tenant_id, endpoint_id, event_id, event_seq from bench_design_deliveries
             where status = 'pending' and next_attempt_at <= now() order by next_attempt_at, event_seq limit $2 for update skip locked)
           update bench_design_deliveries d set attempts = d.attempts + 1, next_attempt_at = now() + interval '60 seconds', lease_token = $1, last_attempt_at = now()
           from due join bench_design_outbox o on o.seq = due.event_seq
           where d.tenant_id = due.tenant_id and d.endpoint_id = due.endpoint_id and d.event_id = due.event_id
           returning d.tenant_id, d.endpoint_id, d.event_id, o.type, o.payload, o.created_at`,
          [token, BATCH],
        );
        if (rows.length === 0) {
          if (!dispatching) return;
          await new Promise((resolve) => setTimeout(resolve, 5));
          continue;
        }
        const recorded = await record(await send(rows), token);
        delivered += recorded;
      }
    };
    await Promise.all([dispatcher(), ...Array.from({ length: BOUND_PIPELINES }, pipeline)]);
    return delivered;
  });
}

/**
 * The least a design writes that marks each event dispatched in its outbox row: no dispatch
 * ahead of the sends and no claim. Service-shaped tables (serviceShapedTables), filled with
 * undispatched events before each run; two pipelines, each per batch of 128 one statement taking
 * the dispatch lock, picking the oldest undispatched events, marking them dispatched with their
 * stream positions and inserting each one's delivery already leased (the fan-out is the lease),
 * answering the events; the same requests as the worker's; one statement recording the delivered
 * ones under the lease. A mark per event is what lets dispatch find an event whose transaction
 * committed after a later one's, without waiting for the database's oldest open transaction:
 * docs/decisions.md, "Event delivery against the least a marking design writes".
 */
async function markingBound(databaseUrl: string, url: string): Promise<BoundRun> {
  return serviceShapedSide(databaseUrl, url, 'bench_marking', async ({ pool, record }, send) => {
    let delivered = 0;
    const pipeline = async () => {
      for (;;) {
        const token = newId();
        const { rows } = await pool.query<SentRow>(
          `with lock as materialized (select pg_advisory_xact_lock(hashtext('bench.marking.dispatch'))::text = '' as held),
           picked as (select seq from bench_marking_outbox where (select held from lock) and delivered_at is null order by seq limit $2 for update skip locked),
           numbered as (select s.seq, nextval('bench_marking_positions') as pos from (select seq from picked order by seq) s),
           marked as (
             update bench_marking_outbox o set delivered_at = now(), position = n.pos from numbered n where o.seq = n.seq
             returning o.seq, o.id, o.tenant_id, o.type, o.payload, o.created_at),
           fanned as (
             insert into bench_marking_deliveries (tenant_id, endpoint_id, event_id, event_seq, status, attempts, next_attempt_at, queued_at, lease_token, last_attempt_at)
             select m.tenant_id, e.id, m.id, m.seq, 'pending', 1, now() + interval '60 seconds', now(), $1, now()
             from marked m join bench_marking_endpoints e on e.tenant_id = m.tenant_id and e.enabled and (jsonb_array_length(e.types) = 0 or e.types @> to_jsonb(m.type))
             returning tenant_id, endpoint_id, event_id, event_seq)
           select f.tenant_id, f.endpoint_id, f.event_id, m.type, m.payload, m.created_at from fanned f join marked m on m.seq = f.event_seq`,
          [token, BATCH],
        );
        if (rows.length === 0) return;
        const recorded = await record(await send(rows), token);
        delivered += recorded;
      }
    };
    await Promise.all(Array.from({ length: BOUND_PIPELINES }, pipeline));
    return delivered;
  });
}

/**
 * The row: `rounds` rounds, each the bare POST loop for `seconds / rounds`, then the worker
 * delivering `eventCount / rounds` events, then, on PostgreSQL, the worker's design done bare,
 * the least marking design and the bound, the same number each. This machine's speed moves by a
 * third within a minute (the loop alone ran at 12,700 and 7,100/s before and after one run of the
 * worker); each side's figure pools its rounds, so the five see the same moments. Warm-ups of
 * each side come first and are not counted.
 */
export async function eventsPhase(
  env: Record<string, string | undefined>,
  port: number,
  eventCount: number,
  seconds: number,
  log: (line: string) => void,
  databaseName?: string,
  rounds = EVENTS_ROUNDS,
): Promise<EventsBenchResult> {
  const receiver = await startServer({ name: 'event receiver', script: fileURLToPath(new URL('./events-receiver.js', import.meta.url)), env: { PORT: String(port) }, port });
  const url = `http://127.0.0.1:${port}/hook`;
  const perRound = Math.ceil(eventCount / rounds);
  const dbUrl = env.DATABASE_URL;
  const pids = { receiver: receiver.pid, ...(databaseName ? { database: databaseName } : {}) };
  const loop = new Tally(pids);
  const row = new Tally(pids);
  const boundTally = new Tally(pids);
  const designTally = new Tally(pids);
  const markingTally = new Tally(pids);
  try {
    await postLoop(url, 1, CONCURRENCY); // warm-up
    const config = loadConfig({ ...env, LOG_LEVEL: 'warn', EVENTS_ALLOW_PRIVATE_URLS: 'on' });
    const container = await createContainer({ config });
    const bound = dbUrl && databaseName ? await deliveryBound(dbUrl, url) : undefined;
    const design = dbUrl && databaseName ? await designBound(dbUrl, url) : undefined;
    const marking = dbUrl && databaseName ? await markingBound(dbUrl, url) : undefined;
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
      /** Queues `count` events, then times the worker delivering them all: `started` is called as it starts. */
      const deliverAll = async (count: number, started: () => void = () => undefined) => {
        await insertEvents(count);
        // Each timed run starts from vacuumed tables, as autovacuum would leave them between
        // bursts: this machine's PostgreSQL runs with autovacuum off (conf.d/90-ci.conf), so the
        // earlier runs' dead rows (and, on a DATABASE_URL kept between runs, every earlier run's)
        // would otherwise stay in the queue's indexes for the next to step over: 3.8 ms a claim
        // behind 600,000 of them. What a run itself leaves behind, it steps over.
        await container.database.db.execute(sql`vacuum analyze event_deliveries, outbox_events`);
        recorded = 0;
        wanted = count;
        const done = new Promise<void>((resolve) => (allRecorded = resolve));
        started();
        const startedAt = Date.now();
        worker.start();
        let deadline: NodeJS.Timeout | undefined;
        await Promise.race([
          done,
          new Promise((_, reject) => (deadline = setTimeout(() => reject(new Error('event delivery did not finish in 10 minutes')), 600_000))),
        ]).finally(() => clearTimeout(deadline));
        const elapsed = (Date.now() - startedAt) / 1000;
        await worker.stop();
        return elapsed;
      };
      // Warm-ups first, as every HTTP row has one: the same worker delivers a quarter as many
      // events beforehand, so the measured rounds find its code compiled and its connections open
      // (measured cold, 10,000 events took 1.7 s at 152 µs of the worker's CPU an event; warm,
      // 99–115 µs); the bound the same.
      const warmup = Math.ceil(eventCount / 4);
      await deliverAll(warmup);
      await bound?.run(warmup);
      await design?.run(warmup);
      await marking?.run(warmup);
      /** A bound's run in a round, its CPU and seconds added to `tally`: its rate. */
      const boundRound = async (side: BoundRun, tally: Tally) => {
        let before = tally.mark();
        const boundSeconds = await side.run(perRound, async (started) => {
          before = tally.mark();
          started();
        });
        return tally.add(before, perRound, boundSeconds);
      };
      const roundResults: EventsRound[] = [];
      for (let r = 0; r < rounds; r++) {
        let before = loop.mark();
        const looped = await postLoop(url, seconds / rounds, CONCURRENCY);
        const loopRate = loop.add(before, looped.requests, looped.seconds);
        const elapsed = await deliverAll(perRound, () => (before = row.mark()));
        const rowRate = row.add(before, perRound, elapsed);
        const designRate = design ? await boundRound(design, designTally) : undefined;
        const markingRate = marking ? await boundRound(marking, markingTally) : undefined;
        const boundRate = bound ? await boundRound(bound, boundTally) : undefined;
        roundResults.push({
          loopPerSec: loopRate,
          eventsPerSec: rowRate,
          ...(designRate === undefined ? {} : { designPerSec: designRate }),
          ...(markingRate === undefined ? {} : { markingPerSec: markingRate }),
          ...(boundRate === undefined ? {} : { boundPerSec: boundRate }),
        });
        log(
          `    round ${r + 1}: loop ${loopRate.toFixed(0)}/s, worker ${rowRate.toFixed(0)}/s` +
            (designRate === undefined ? '' : `, its design bare ${designRate.toFixed(0)}/s`) +
            (markingRate === undefined ? '' : `, marking ${markingRate.toFixed(0)}/s`) +
            (boundRate === undefined ? '' : `, bound ${boundRate.toFixed(0)}/s`),
        );
      }
      const stored = await deliveredCount();
      const total = warmup + perRound * rounds;
      if (stored !== total) throw new Error(`the worker recorded ${recorded} deliveries in its last run; the database holds ${stored} of ${total}`);
      const cpu = {
        workerUs: row.us(row.cpu.sender),
        ...(databaseName ? { dbUs: row.us(row.cpu.db) } : {}),
        receiverUs: row.us(row.cpu.receiver),
        loopClientUs: loop.us(loop.cpu.sender),
        loopReceiverUs: loop.us(loop.cpu.receiver),
      };
      log(`  ceiling: bare HTTP POST loop (${CONCURRENCY} in flight): ${loop.perSec.toFixed(0)}/s, CPU/request client ${cpu.loopClientUs.toFixed(0)} µs + receiver ${cpu.loopReceiverUs.toFixed(0)} µs`);
      log(`  events delivered: ${row.units} in ${row.seconds.toFixed(1)} s: ${row.perSec.toFixed(0)}/s, CPU/event worker ${cpu.workerUs.toFixed(0)} µs + PostgreSQL ${cpu.dbUs?.toFixed(0) ?? '-'} µs + receiver ${cpu.receiverUs.toFixed(0)} µs`);
      const result = (tally: Tally): BoundResult => ({
        perSec: tally.perSec,
        cpu: { senderUs: tally.us(tally.cpu.sender), dbUs: tally.us(tally.cpu.db), receiverUs: tally.us(tally.cpu.receiver) },
      });
      const boundResult = bound ? result(boundTally) : undefined;
      const designResult = design ? result(designTally) : undefined;
      const markingResult = marking ? result(markingTally) : undefined;
      if (designResult) {
        log(`  the design bare (dispatch ahead, fan-out, stream positions; lease and record a batch of ${BATCH}): ${designResult.perSec.toFixed(0)}/s, CPU/event sender ${designResult.cpu.senderUs.toFixed(0)} µs + PostgreSQL ${designResult.cpu.dbUs.toFixed(0)} µs + receiver ${designResult.cpu.receiverUs.toFixed(0)} µs`);
      }
      if (markingResult) {
        log(`  the least marking design (per batch of ${BATCH}: events marked with positions and fanned out leased in one statement, recorded in one): ${markingResult.perSec.toFixed(0)}/s, CPU/event sender ${markingResult.cpu.senderUs.toFixed(0)} µs + PostgreSQL ${markingResult.cpu.dbUs.toFixed(0)} µs + receiver ${markingResult.cpu.receiverUs.toFixed(0)} µs`);
      }
      if (boundResult) {
        log(`  bound (the same signed requests; lease and record a batch of ${BATCH}, one statement each): ${boundResult.perSec.toFixed(0)}/s, CPU/event sender ${boundResult.cpu.senderUs.toFixed(0)} µs + PostgreSQL ${boundResult.cpu.dbUs.toFixed(0)} µs + receiver ${boundResult.cpu.receiverUs.toFixed(0)} µs`);
      }
      return {
        events: row.units,
        endpoints: 1,
        seconds: row.seconds,
        eventsPerSec: row.perSec,
        ceilingPerSec: loop.perSec,
        rounds: roundResults,
        concurrency: CONCURRENCY,
        batchSize: BATCH,
        cpu,
        ...(boundResult ? { bound: boundResult } : {}),
        ...(designResult ? { design: designResult } : {}),
        ...(markingResult ? { marking: markingResult } : {}),
      };
    } finally {
      await bound?.close();
      await design?.close();
      await marking?.close();
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
  const loopCpu = c ? `${n0(c.loopClientUs)} + - + ${n0(c.loopReceiverUs)}` : '-';
  return [
    '| event delivery to a local receiver | per second | ratio to ceiling | CPU µs per event: sender + PostgreSQL + receiver |',
    '|---|---:|---:|---:|',
    `| events delivered by the worker (${n0(r.events)} events, 1 endpoint; dispatch, 2 pipelines of leased batches of ${r.batchSize}, ${r.concurrency} in flight each, signed, SSRF-guarded agent) | ${n0(r.eventsPerSec)} | ${((r.eventsPerSec / r.ceilingPerSec) * 100).toFixed(0)}% | ${rowCpu} |`,
    `| ceiling: bare HTTP POST loop to the same receiver (${r.concurrency} in flight, keep-alive) | ${n0(r.ceilingPerSec)} | — | ${loopCpu} |`,
    ...(r.design
      ? [
          `| the worker's design done bare: one dispatcher ahead of the sends (per 500 events one statement: the dispatch lock, a pending delivery per matching endpoint, stream positions), 2 pipelines leasing and recording batches of ${r.batchSize}; the service's columns, indexes and foreign key | ${n0(r.design.perSec)} | ${((r.design.perSec / r.ceilingPerSec) * 100).toFixed(0)}% | ${n0(r.design.cpu.senderUs)} + ${n0(r.design.cpu.dbUs)} + ${n0(r.design.cpu.receiverUs)} |`,
        ]
      : []),
    ...(r.marking
      ? [
          `| the least a marking design writes: 2 pipelines, each per batch of ${r.batchSize} one statement marking the oldest undispatched events dispatched (the dispatch lock, stream positions) and inserting their deliveries already leased, and one recording them; no dispatch ahead, no claim; the service's columns, indexes and foreign key | ${n0(r.marking.perSec)} | ${((r.marking.perSec / r.ceilingPerSec) * 100).toFixed(0)}% | ${n0(r.marking.cpu.senderUs)} + ${n0(r.marking.cpu.dbUs)} + ${n0(r.marking.cpu.receiverUs)} |`,
        ]
      : []),
    ...(r.bound
      ? [
          `| bound: the same signed requests through the same client, 2 pipelines of ${r.batchSize}; per batch one statement leasing the oldest pending rows with their events and one recording them delivered (a table of its own; no fan-out, no stream positions) | ${n0(r.bound.perSec)} | ${((r.bound.perSec / r.ceilingPerSec) * 100).toFixed(0)}% | ${n0(r.bound.cpu.senderUs)} + ${n0(r.bound.cpu.dbUs)} + ${n0(r.bound.cpu.receiverUs)} |`,
        ]
      : []),
    '',
    `Measured in ${r.rounds.length} rounds, each the loop (${r.concurrency} in flight), the worker${r.design ? ', its design bare' : ''}${r.marking ? ', the marking design' : ''}${r.bound ? ' and the bound' : ''} one after the other, ${n0(r.events / r.rounds.length)} events a side a round; each figure above pools its rounds. Per round, loop / worker${r.design ? ' / design bare' : ''}${r.marking ? ' / marking' : ''}${r.bound ? ' / bound' : ''} per second: ${r.rounds
      .map(
        (x, i) =>
          `${i + 1}: ${n0(x.loopPerSec)} / ${n0(x.eventsPerSec)}${x.designPerSec === undefined ? '' : ` / ${n0(x.designPerSec)}`}${x.markingPerSec === undefined ? '' : ` / ${n0(x.markingPerSec)}`}${x.boundPerSec === undefined ? '' : ` / ${n0(x.boundPerSec)}`}`,
      )
      .join('; ')}.`,
  ].join('\n');
}
