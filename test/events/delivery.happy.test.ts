import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, usingPostgres, type Harness, type TestTenant } from '../helpers/harness.js';
import { addEndpoint, makeUsers, pullAll, scopedWorker } from '../helpers/events.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { statementsDuring } from '../helpers/statements.js';
import { RETRY_CAP_MS, RETRY_WINDOW_MS } from '../../src/modules/events/schedule.js';
import { sql } from 'drizzle-orm';
import { claimStatement, createDeliveryRepo, PARKED_UNTIL } from '../../src/modules/events/delivery-repo.js';
import { CLAIM_PLANNER_SETTINGS } from '../../src/platform/db/claim.js';
import { outboxEvents } from '../../src/platform/events/table.js';
import { DISPATCH_FULL_SCAN_MS } from '../../src/modules/events/worker.js';

let h: Harness;
let receiver: Receiver;
let t: TestTenant;
beforeAll(async () => {
  h = await createHarness({ env: { EVENTS_ALLOW_PRIVATE_URLS: 'on' } });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await h.close();
});
// Each case on a fresh tenant with its own worker: nothing of one case reaches another.
beforeEach(async () => {
  t = await h.newTenant();
  receiver.mode = 'ok';
});
const deliveryRow = (endpointId: string, eventId: string) => createDeliveryRepo(h.database.db).find(t.tenantId, endpointId, eventId);
const getEndpoint = async (id: string) => (await h.api(h.keyHeaders(t)).GET('/event-endpoints/{id}', { params: { path: { id } } })).data!;

describe('event delivery: Standard Webhooks to the tenant endpoints', () => {
  it('delivers every event to every matching endpoint, verified by the standardwebhooks library', async () => {
    const worker = scopedWorker(h, {}, [t]);
    const all = await addEndpoint(h, receiver, {}, t);
    const onlyUpdates = await addEndpoint(h, receiver, { types: ['user.updated'] }, t);
    const users = await makeUsers(h, 3, t);
    const patched = await h.api(h.keyHeaders(t)).PATCH('/users/{id}', { params: { path: { id: users[0]! } }, body: { fullName: 'Ada Lovelace' } });
    expect(patched.response.status, JSON.stringify(patched.error)).toBe(200);

    const result = await worker.drainAll();
    expect(result).toMatchObject({ dispatched: 4, attempted: 5, delivered: 5 });
    expect(receiver.rejected).toEqual([]);
    const atAll = receiver.acceptedAt(all.path);
    expect(atAll.map((e) => e.type)).toEqual(['user.created', 'user.created', 'user.created', 'user.updated']);
    expect(receiver.acceptedAt(onlyUpdates.path).map((e) => e.type)).toEqual(['user.updated']);

    // webhook-id is the event id; the body is {type, timestamp, data}.
    const stream = await pullAll(h, t);
    expect(atAll.map((e) => e.webhookId)).toEqual(stream.map((e) => e.id));
    expect(atAll[0]!.body).toEqual({ type: 'user.created', timestamp: stream[0]!.timestamp, data: stream[0]!.data });
    expect(Math.abs(Number(atAll[0]!.timestamp) - Date.now() / 1000)).toBeLessThan(60);
    expect(receiver.acceptedAt(onlyUpdates.path)[0]!.webhookId).toBe(stream[3]!.id);

    // Nothing is delivered twice.
    expect(await worker.drainAll()).toMatchObject({ attempted: 0 });
    expect(receiver.acceptedAt(all.path)).toHaveLength(4);
  });

  it('retries a failing endpoint on the backoff schedule (injected clock), with the same webhook-id, until it answers 2xx', async () => {
    // Jitter fixed at 0.5: waits of 5 s, 10 s, 20 s after the 1st, 2nd and 3rd failures.
    const worker = scopedWorker(h, { random: () => 0.5 }, [t]);
    const ep = await addEndpoint(h, receiver, {}, t);
    await makeUsers(h, 1, t);
    receiver.mode = 'fail';
    expect(await worker.drainOnce()).toMatchObject({ attempted: 1, delivered: 0 });
    const [event] = await pullAll(h, t);
    let row = await deliveryRow(ep.id, event!.id);
    expect(row).toMatchObject({ status: 'pending', attempts: 1, lastStatus: 500, lastError: 'HTTP 500' });
    expect(row!.nextAttemptAt.getTime()).toBe(h.clock.now().getTime() + 5_000);

    h.clock.advance(4_999);
    expect(await worker.drainOnce()).toMatchObject({ attempted: 0 });
    h.clock.advance(1);
    expect(await worker.drainOnce()).toMatchObject({ attempted: 1 });
    row = await deliveryRow(ep.id, event!.id);
    expect(row!.nextAttemptAt.getTime()).toBe(h.clock.now().getTime() + 10_000);
    h.clock.advance(10_000);
    expect(await worker.drainOnce()).toMatchObject({ attempted: 1 });
    expect((await deliveryRow(ep.id, event!.id))!.nextAttemptAt.getTime()).toBe(h.clock.now().getTime() + 20_000);

    receiver.mode = 'ok';
    h.clock.advance(20_000);
    expect(await worker.drainOnce()).toMatchObject({ attempted: 1, delivered: 1 });
    expect((await deliveryRow(ep.id, event!.id))).toMatchObject({ status: 'delivered', attempts: 4, lastStatus: 204 });
    const ids = receiver.attempts.filter((a) => a.path === ep.path).map((a) => a.webhookId);
    expect(ids).toEqual([event!.id, event!.id, event!.id, event!.id]);
    expect(receiver.acceptedAt(ep.path)).toHaveLength(1);
  });

  it('disables the endpoint with an audit row after about three days of failure; enable + replay delivers under the same webhook-id', async () => {
    const worker = scopedWorker(h, { random: () => 0.999 }, [t]);
    const ep = await addEndpoint(h, receiver, {}, t);
    await makeUsers(h, 1, t);
    receiver.mode = 'fail';
    const start = h.clock.now().getTime();
    let attempts = 0;
    while ((await getEndpoint(ep.id)).enabled) {
      attempts += (await worker.drainOnce()).attempted;
      h.clock.advance(RETRY_CAP_MS);
      if (attempts > 100) throw new Error('never disabled');
    }
    expect(h.clock.now().getTime() - start).toBeGreaterThanOrEqual(RETRY_WINDOW_MS);
    expect(attempts).toBeGreaterThan(10);
    const endpoint = await getEndpoint(ep.id);
    expect(endpoint).toMatchObject({ enabled: false, disabledReason: expect.stringMatching(/^delivery failed for 72 hours: HTTP 500/) });
    const [event] = await pullAll(h, t);
    expect(await deliveryRow(ep.id, event!.id)).toMatchObject({ status: 'failed' });
    const audit = await h.api(h.keyHeaders(t)).GET('/audit-events', { params: { query: { type: 'event_endpoint.disabled' } } });
    expect(audit.data!.data).toEqual([expect.objectContaining({ type: 'event_endpoint.disabled', actorType: 'system', details: expect.objectContaining({ endpointId: ep.id }) })]);

    // While disabled nothing is sent, new events are not queued for it.
    await makeUsers(h, 1, t);
    expect(await worker.drainAll()).toMatchObject({ attempted: 0 });

    receiver.mode = 'ok';
    await h.api(h.keyHeaders(t)).PATCH('/event-endpoints/{id}', { params: { path: { id: ep.id } }, body: { enabled: true } });
    const replay = await h.api(h.keyHeaders(t)).POST('/event-endpoints/{id}/replay', { params: { path: { id: ep.id } }, body: { from: new Date(start - 60_000).toISOString() } });
    expect(replay.response.status, JSON.stringify(replay.error)).toBe(202);
    expect(replay.data).toEqual({ queued: 2 });
    await worker.drainAll();
    const stream = await pullAll(h, t);
    expect(receiver.acceptedAt(ep.path).map((e) => e.webhookId)).toEqual(stream.map((e) => e.id));
  });

  it('disabling an endpoint parks its pending deliveries; enabling it sends them', async () => {
    const worker = scopedWorker(h, {}, [t]);
    const ep = await addEndpoint(h, receiver, {}, t);
    await makeUsers(h, 2, t);
    receiver.mode = 'fail';
    await worker.drainAll();
    const [event] = await pullAll(h, t);
    await h.api(h.keyHeaders(t)).PATCH('/event-endpoints/{id}', { params: { path: { id: ep.id } }, body: { enabled: false, disabledReason: 'receiver maintenance' } });
    expect((await deliveryRow(ep.id, event!.id))!.nextAttemptAt).toEqual(PARKED_UNTIL);
    receiver.mode = 'ok';
    h.clock.advance(RETRY_CAP_MS);
    expect(await worker.drainAll()).toMatchObject({ attempted: 0 });
    await h.api(h.keyHeaders(t)).PATCH('/event-endpoints/{id}', { params: { path: { id: ep.id } }, body: { enabled: true } });
    expect(await worker.drainAll()).toMatchObject({ attempted: 2, delivered: 2 });
    expect(receiver.acceptedAt(ep.path)).toHaveLength(2);
  });

  it('replay re-sends delivered events with the same webhook-id, by time or by stream seq', async () => {
    const worker = scopedWorker(h, {}, [t]);
    const ep = await addEndpoint(h, receiver, {}, t);
    await makeUsers(h, 3, t);
    await worker.drainAll();
    const stream = await pullAll(h, t);
    expect(receiver.acceptedAt(ep.path)).toHaveLength(3);

    const bySeq = await h.api(h.keyHeaders(t)).POST('/event-endpoints/{id}/replay', { params: { path: { id: ep.id } }, body: { fromSeq: stream[1]!.seq, toSeq: stream[1]!.seq } });
    expect(bySeq.data).toEqual({ queued: 1 });
    await worker.drainAll();
    expect(receiver.acceptedAt(ep.path).map((e) => e.webhookId)).toEqual([...stream.map((e) => e.id), stream[1]!.id]);

    const byTime = await h.api(h.keyHeaders(t)).POST('/event-endpoints/{id}/replay', {
      params: { path: { id: ep.id } },
      body: { from: new Date(Date.now() - 3_600_000).toISOString(), to: new Date(Date.now() + 3_600_000).toISOString() },
    });
    expect(byTime.data).toEqual({ queued: 3 });
    await worker.drainAll();
    expect(receiver.acceptedAt(ep.path).slice(4).map((e) => e.webhookId)).toEqual(stream.map((e) => e.id));
    // A replay for an endpoint with a filter queues only matching events.
    const filtered = await addEndpoint(h, receiver, { types: ['user.updated'] }, t);
    const none = await h.api(h.keyHeaders(t)).POST('/event-endpoints/{id}/replay', { params: { path: { id: filtered.id } }, body: { fromSeq: 0 } });
    expect(none.data).toEqual({ queued: 0 });
  });

  it('a receiver down for a while receives everything once it is back', async () => {
    const worker = scopedWorker(h, {}, [t]);
    const ep = await addEndpoint(h, receiver, {}, t);
    await receiver.down();
    try {
      await makeUsers(h, 5, t);
      for (let i = 0; i < 6; i++) {
        await worker.drainAll();
        h.clock.advance(10 * 60_000);
      }
    } finally {
      await receiver.up();
    }
    expect(receiver.acceptedAt(ep.path)).toHaveLength(0);
    const [first] = await pullAll(h, t);
    expect((await deliveryRow(ep.id, first!.id))!.lastError).toMatch(/ECONNREFUSED/);
    h.clock.advance(RETRY_CAP_MS);
    await worker.drainAll();
    const stream = await pullAll(h, t);
    expect(receiver.acceptedAt(ep.path).map((e) => e.webhookId).sort()).toEqual(stream.map((e) => e.id).sort());
  });

  it('a receiver that does not answer in time is retried (timeout)', async () => {
    const worker = scopedWorker(h, { timeoutMs: 300 }, [t]);
    const ep = await addEndpoint(h, receiver, {}, t);
    await makeUsers(h, 1, t);
    receiver.mode = 'hang';
    expect(await worker.drainOnce()).toMatchObject({ attempted: 1, delivered: 0 });
    receiver.cutHanging();
    const [event] = await pullAll(h, t);
    expect(await deliveryRow(ep.id, event!.id)).toMatchObject({ status: 'pending', lastError: 'TIMEOUT: no answer in time', lastStatus: null });
  });

  it('prunes delivered rows after the retention window (7 days)', async () => {
    const worker = scopedWorker(h, { pruneIntervalMs: 0 }, [t]);
    const ep = await addEndpoint(h, receiver, {}, t);
    await makeUsers(h, 2, t);
    await worker.drainAll();
    const [event] = await pullAll(h, t);
    h.clock.advance(7 * 24 * 3_600_000 - 1_000);
    expect((await worker.drainOnce()).pruned).toBe(0);
    h.clock.advance(2_000);
    expect((await worker.drainOnce()).pruned).toBe(2);
    expect(await deliveryRow(ep.id, event!.id)).toBeUndefined();
  });

  it('start() delivers on its own timer, each event once across batches; stop() finishes the batch in flight and its outcome write', async () => {
    // Batches of 2: the loop claims its next batch while the last one's outcome is written
    // (the rows stay leased meanwhile, so no batch takes them twice).
    const worker = scopedWorker(h, { pollIntervalMs: 20, batchSize: 2 }, [t]);
    const ep = await addEndpoint(h, receiver, {}, t);
    await makeUsers(h, 7, t);
    worker.start();
    const deadline = Date.now() + 15_000;
    while (receiver.acceptedAt(ep.path).length < 7 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await worker.stop();
    expect(receiver.acceptedAt(ep.path)).toHaveLength(7);
    const events = await pullAll(h, t);
    expect(events).toHaveLength(7);
    for (const event of events) expect(await deliveryRow(ep.id, event.id)).toMatchObject({ status: 'delivered', attempts: 1 });
    // Stopped: nothing more is sent.
    await makeUsers(h, 1, t);
    await new Promise((r) => setTimeout(r, 100));
    expect(receiver.acceptedAt(ep.path)).toHaveLength(7);
  });

  it('dispatch reads from past the last event it dispatched; an event that committed late, below that point, goes out at the next look at the whole outbox, a second later', async () => {
    const worker = scopedWorker(h, {}, [t]);
    const ep = await addEndpoint(h, receiver, {}, t);
    const db = h.database.db;
    // A transaction that took its seq before later events and commits after them: how its
    // event looks to dispatch (seqs commit out of order).
    const reserve = async () => {
      const reserved = await db.execute(sql`select nextval(pg_get_serial_sequence('outbox_events', 'seq'))::text as seq`);
      return Number((reserved as unknown as { rows: Array<{ seq: string }> }).rows[0]!.seq);
    };
    const lateSeq = await reserve();
    const laterSeq = await reserve();
    await makeUsers(h, 2, t);
    expect(await worker.drainAll()).toMatchObject({ dispatched: 2, delivered: 2 });
    const lateId = randomUUID();
    await db.insert(outboxEvents).values({ seq: lateSeq, id: lateId, tenantId: t.tenantId, type: 'user.created', payload: { userId: randomUUID(), email: 'late@example.com' } });
    // Below the floor: unseen until the worker looks at the whole outbox again.
    h.clock.advance(DISPATCH_FULL_SCAN_MS - 1);
    expect(await worker.drainAll()).toMatchObject({ dispatched: 0, attempted: 0 });
    expect(receiver.attempts.some((a) => a.webhookId === lateId)).toBe(false);
    h.clock.advance(1);
    expect(await worker.drainAll()).toMatchObject({ dispatched: 1, attempted: 1, delivered: 1 });
    expect(receiver.attempts.filter((a) => a.webhookId === lateId)).toHaveLength(1);
    expect(await deliveryRow(ep.id, lateId)).toMatchObject({ status: 'delivered', attempts: 1 });
    // And once only: the next whole look finds nothing left, and the floor stays where it was.
    h.clock.advance(DISPATCH_FULL_SCAN_MS);
    expect(await worker.drainAll()).toMatchObject({ dispatched: 0, attempted: 0 });
    const laterId = randomUUID();
    await db.insert(outboxEvents).values({ seq: laterSeq, id: laterId, tenantId: t.tenantId, type: 'user.created', payload: { userId: randomUUID(), email: 'later@example.com' } });
    h.clock.advance(DISPATCH_FULL_SCAN_MS - 1);
    expect(await worker.drainAll()).toMatchObject({ dispatched: 0, attempted: 0 });
    h.clock.advance(1);
    expect(await worker.drainAll()).toMatchObject({ dispatched: 1, delivered: 1 });
    expect(receiver.attempts.filter((a) => a.webhookId === laterId)).toHaveLength(1);
  });

  it('a claim reads the due index from its floor; a delivery due before that floor goes out at the next look at the whole index, a second later, once', async () => {
    const worker = scopedWorker(h, {}, [t]);
    const ep = await addEndpoint(h, receiver, {}, t);
    await makeUsers(h, 2, t);
    expect(await worker.drainAll()).toMatchObject({ dispatched: 2, delivered: 2 });
    const [first] = await pullAll(h, t);
    // Due again a minute before the worker's clock (a retry set by an instance whose clock is
    // behind): before the floor the last claims left (they leased every due row, at this time).
    await h.database.db.execute(sql`
      update event_deliveries set status = 'pending', delivered_at = null, next_attempt_at = ${new Date(h.clock.now().getTime() - 60_000).toISOString()}::timestamptz
      where tenant_id = ${t.tenantId}::uuid and endpoint_id = ${ep.id}::uuid and event_id = ${first!.id}::uuid`);
    h.clock.advance(DISPATCH_FULL_SCAN_MS - 1);
    expect(await worker.drainAll()).toMatchObject({ attempted: 0 });
    expect(receiver.attempts.filter((a) => a.webhookId === first!.id)).toHaveLength(1);
    h.clock.advance(1);
    expect(await worker.drainAll()).toMatchObject({ attempted: 1, delivered: 1 });
    expect(receiver.attempts.filter((a) => a.webhookId === first!.id)).toHaveLength(2);
    expect(await deliveryRow(ep.id, first!.id)).toMatchObject({ status: 'delivered', attempts: 2 });
    h.clock.advance(DISPATCH_FULL_SCAN_MS);
    expect(await worker.drainAll()).toMatchObject({ attempted: 0 });

    // Due a moment before the last claim's time (a dispatch of another pipeline that took its
    // `now` before that claim and committed after it): the next claim takes it, without waiting
    // for a whole look.
    const [, second] = await pullAll(h, t);
    await h.database.db.execute(sql`
      update event_deliveries set status = 'pending', delivered_at = null, next_attempt_at = ${new Date(h.clock.now().getTime() - 500).toISOString()}::timestamptz
      where tenant_id = ${t.tenantId}::uuid and endpoint_id = ${ep.id}::uuid and event_id = ${second!.id}::uuid`);
    h.clock.advance(10);
    expect(await worker.drainAll()).toMatchObject({ attempted: 1, delivered: 1 });
    expect(receiver.attempts.filter((a) => a.webhookId === second!.id)).toHaveLength(2);
  });

  it('a claim from a due time leases only rows due from then on, and answers the latest due time it leased', async () => {
    const ep = await addEndpoint(h, receiver, {}, t);
    const repo = createDeliveryRepo(h.database.db);
    const now = h.clock.now();
    await makeUsers(h, 3, t);
    expect(await repo.dispatch(now, 500, [t.tenantId])).toMatchObject({ dispatched: 3 });
    const stream = await pullAll(h, t);
    const dueAt = (i: number) => new Date(now.getTime() - (3 - i) * 1_000);
    for (const [i, event] of stream.entries()) {
      await h.database.db.execute(sql`
        update event_deliveries set next_attempt_at = ${dueAt(i).toISOString()}::timestamptz
        where tenant_id = ${t.tenantId}::uuid and endpoint_id = ${ep.id}::uuid and event_id = ${event.id}::uuid`);
    }
    const until = new Date(now.getTime() + 60_000);
    const fromSecond = await repo.claimDue(now, 128, until, randomUUID(), [t.tenantId], dueAt(1));
    expect(fromSecond.rows.map((r) => r.eventId)).toEqual([stream[1]!.id, stream[2]!.id]);
    expect(fromSecond.lastDueAt).toEqual(dueAt(2));
    // Without it, from the index's start: the one left, which the claim before stepped over.
    const rest = await repo.claimDue(now, 1, until, randomUUID(), [t.tenantId]);
    expect(rest.rows.map((r) => r.eventId)).toEqual([stream[0]!.id]);
    expect(rest.lastDueAt).toEqual(dueAt(0));
  });

  it('a claim reaches the rows it picked by their whole key, even before the statistics have seen the backlog', async () => {
    // A backlog PostgreSQL has no statistics of (the embedded pass: each file's database is new
    // and this case runs before any analyze in it). With the endpoints joined again in the
    // update, the planner reached the picked rows by the endpoint's half of the key and filtered
    // the event id: this claim read 1.16 million rows (0.3–1 s a claim in the benchmark).
    const ep = await addEndpoint(h, receiver, {}, t);
    const db = h.database.db;
    await db.execute(sql`
      insert into event_deliveries (tenant_id, endpoint_id, event_id, event_seq, status, attempts, next_attempt_at, queued_at)
      select ${t.tenantId}::uuid, ${ep.id}::uuid, gen_random_uuid(), g, 'pending', 0, now(), now() from generate_series(1, 20000) g`);
    try {
      const now = new Date(Date.now() + 1_000);
      let plan: unknown;
      // EXPLAIN ANALYZE runs the claim: its transaction is rolled back.
      await db
        .transaction(async (tx) => {
          await tx.execute(CLAIM_PLANNER_SETTINGS);
          const result = await tx.execute(sql`explain (analyze, format json) ${claimStatement(now, 128, new Date(now.getTime() + 60_000), randomUUID())}`);
          const cell = (result as unknown as { rows: Array<Record<string, unknown>> }).rows[0]!['QUERY PLAN'];
          plan = typeof cell === 'string' ? JSON.parse(cell) : cell;
          throw new Error('rollback');
        })
        .catch((error: unknown) => {
          if ((error as Error).message !== 'rollback') throw error;
        });
      const nodes: Array<Record<string, unknown>> = [];
      const walk = (node: Record<string, unknown>) => {
        nodes.push(node);
        for (const child of (node.Plans as Array<Record<string, unknown>> | undefined) ?? []) walk(child);
      };
      walk((plan as Array<{ Plan: Record<string, unknown> }>)[0]!.Plan);
      const text = JSON.stringify(plan);
      const reads = nodes.filter((n) => n['Relation Name'] === 'event_deliveries' && n['Node Type'] !== 'ModifyTable' && n['Index Name'] !== 'event_deliveries_due_idx');
      expect(reads.length, text).toBeGreaterThan(0);
      for (const read of reads) {
        expect(read['Index Name'], text).toBe('event_deliveries_pkey');
        expect(String(read['Index Cond']), text).toMatch(/event_id/);
      }
      const removed = nodes.reduce((sum, n) => sum + Number(n['Rows Removed by Join Filter'] ?? 0) + Number(n['Rows Removed by Filter'] ?? 0), 0);
      expect(removed, text).toBeLessThan(1_000);
    } finally {
      await db.execute(sql`delete from event_deliveries where tenant_id = ${t.tenantId}::uuid`);
    }
  });

  it('a round sends at most a batch: what its claim takes, then as many of its dispatch\'s deliveries as there is room for', async () => {
    const worker = scopedWorker(h, { batchSize: 2 }, [t]);
    const ep = await addEndpoint(h, receiver, {}, t);
    await makeUsers(h, 3, t);
    // Nothing due yet: dispatch makes three deliveries and leases two of them to this round.
    expect(await worker.drainOnce()).toMatchObject({ dispatched: 3, attempted: 2, delivered: 2 });
    await makeUsers(h, 2, t);
    // The one left due fills half the batch; dispatch leases one of the two new ones.
    expect(await worker.drainOnce()).toMatchObject({ dispatched: 2, attempted: 2, delivered: 2 });
    expect(await worker.drainOnce()).toMatchObject({ dispatched: 0, attempted: 1, delivered: 1 });
    expect(await worker.drainOnce()).toMatchObject({ attempted: 0 });
    const stream = await pullAll(h, t);
    expect(receiver.acceptedAt(ep.path).map((e) => e.webhookId).sort()).toEqual(stream.map((e) => e.id).sort());
  });

  it('a round asks whether anything waits to be dispatched with its claim, in the claim\'s message on a PostgreSQL server: with nothing waiting, no dispatch statement runs', async () => {
    const worker = scopedWorker(h, {}, [t]);
    const ep = await addEndpoint(h, receiver, {}, t);
    await makeUsers(h, 2, t);
    // Events wait: the claim's probe finds them, and dispatch takes its lock at once (no probe of its own).
    let round: Awaited<ReturnType<typeof worker.drainOnce>> | undefined;
    const busy = await statementsDuring(h.database, async () => {
      round = await worker.drainOnce();
    });
    expect(round).toMatchObject({ dispatched: 2, attempted: 2, delivered: 2 });
    const probes = (calls: string[]) => calls.filter((c) => /select seq from outbox_events where delivered_at is null/.test(c));
    const dispatches = (calls: string[]) => calls.filter((c) => /bastion\.events\.dispatch/.test(c));
    expect(probes(busy), busy.join('\n')).toHaveLength(1);
    expect(dispatches(busy), busy.join('\n')).toHaveLength(1);
    // Nothing waits: the claim and the probe, and nothing else (no dispatch, no record).
    const idle = await statementsDuring(h.database, async () => {
      round = await worker.drainOnce();
    });
    expect(round).toMatchObject({ dispatched: 0, attempted: 0 });
    expect(dispatches(idle), idle.join('\n')).toHaveLength(0);
    expect(probes(idle), idle.join('\n')).toHaveLength(1);
    if (usingPostgres) {
      // One message: the probe, the claim's planner settings and the claim.
      expect(idle, idle.join('\n')).toHaveLength(1);
      expect(idle[0]).toMatch(/select seq from outbox_events where delivered_at is null.*; select set_config\('enable_sort'.*;\s*with due as materialized/s);
    }
    expect(receiver.acceptedAt(ep.path)).toHaveLength(2);
  });

  it('dispatch leases the first deliveries it makes to the round that made them; the rest stay due, and a lease that passes brings its rows back', async () => {
    const ep = await addEndpoint(h, receiver, {}, t);
    await makeUsers(h, 3, t);
    const repo = createDeliveryRepo(h.database.db);
    const now = h.clock.now();
    const until = new Date(now.getTime() + 60_000);
    const token = randomUUID();
    const round = await repo.dispatch(now, 500, [t.tenantId], { lease: { limit: 2, until, token } });
    expect(round.dispatched).toBe(3);
    const stream = await pullAll(h, t);
    // The first two in stream order, with their events and endpoint, as a claim answers them.
    expect(round.leased.map((r) => r.eventId)).toEqual([stream[0]!.id, stream[1]!.id]);
    expect(round.leased[0]).toMatchObject({ tenantId: t.tenantId, endpointId: ep.id, attempts: 1, leaseToken: token, event: { id: stream[0]!.id, type: 'user.created' }, endpoint: { id: ep.id } });
    expect(round.leased[0]!.event!.payload).toEqual(stream[0]!.data);
    for (const leased of round.leased) {
      expect(await deliveryRow(ep.id, leased.eventId)).toMatchObject({ status: 'pending', attempts: 1, leaseToken: token, nextAttemptAt: until, lastAttemptAt: now });
    }
    expect(await deliveryRow(ep.id, stream[2]!.id)).toMatchObject({ status: 'pending', attempts: 0, leaseToken: null, nextAttemptAt: now, lastAttemptAt: null });

    // A claim now takes only the row dispatch left due; once the lease has passed (the worker
    // that dispatched them died before recording), the leased two come back to a claim.
    const claimed = await repo.claimDue(now, 128, new Date(now.getTime() + 120_000), randomUUID(), [t.tenantId]);
    expect(claimed.rows.map((r) => r.eventId)).toEqual([stream[2]!.id]);
    expect(claimed.lastDueAt).toEqual(now);
    expect(await repo.claimDue(new Date(until.getTime() - 1), 128, new Date(until.getTime() + 60_000), randomUUID(), [t.tenantId])).toEqual({ rows: [], lastDueAt: null });
    const back = await repo.claimDue(until, 128, new Date(until.getTime() + 60_000), randomUUID(), [t.tenantId]);
    expect(back.rows.map((r) => [r.eventId, r.attempts])).toEqual([[stream[0]!.id, 2], [stream[1]!.id, 2]]);
    expect(back.lastDueAt).toEqual(until);

    // Without a lease, dispatch leases nothing.
    await makeUsers(h, 1, t);
    const plain = await repo.dispatch(now, 500, [t.tenantId]);
    expect(plain).toMatchObject({ dispatched: 1, leased: [] });
  });

  it('claims the first due rows in the due index\'s order, never by sorting the backlog, even while the statistics lag a burst', async () => {
    const ep = await addEndpoint(h, receiver, {}, t);
    const db = h.database.db;
    // 20,000 deliveries that the statistics count as delivered, then made pending: a burst
    // PostgreSQL has not analyzed yet. With those statistics and without the claim's settings,
    // PostgreSQL's planner fetched every pending row and sorted them, on every claim (this case
    // fails so on the PostgreSQL pass; PGlite's planner happened to read the index).
    await db.execute(sql`
      insert into event_deliveries (tenant_id, endpoint_id, event_id, event_seq, status, attempts, next_attempt_at, queued_at, delivered_at)
      select ${t.tenantId}::uuid, ${ep.id}::uuid, gen_random_uuid(), g, 'delivered', 1, now(), now(), now() from generate_series(1, 20000) g`);
    await db.execute(sql`analyze event_deliveries`);
    await db.execute(sql`update event_deliveries set status = 'pending', delivered_at = null where tenant_id = ${t.tenantId}::uuid`);
    try {
      const now = new Date(Date.now() + 1_000);
      for (const only of [[t.tenantId], undefined]) {
        const plan = await db.transaction(async (tx) => {
          await tx.execute(CLAIM_PLANNER_SETTINGS);
          const result = await tx.execute(sql`explain (format json) ${claimStatement(now, 128, new Date(now.getTime() + 60_000), randomUUID(), only)}`);
          const cell = (result as unknown as { rows: Array<Record<string, unknown>> }).rows[0]!['QUERY PLAN'];
          return (typeof cell === 'string' ? JSON.parse(cell) : cell) as unknown;
        });
        const nodes: Array<Record<string, unknown>> = [];
        const walk = (node: Record<string, unknown>) => {
          nodes.push(node);
          for (const child of (node.Plans as Array<Record<string, unknown>> | undefined) ?? []) walk(child);
        };
        walk((plan as Array<{ Plan: Record<string, unknown> }>)[0]!.Plan);
        expect(nodes.map((n) => n['Node Type'])).not.toContain('Sort');
        expect(nodes.some((n) => n['Index Name'] === 'event_deliveries_due_idx' && n['Node Type'] === 'Index Scan'), JSON.stringify(plan)).toBe(true);
      }
    } finally {
      await db.execute(sql`delete from event_deliveries where tenant_id = ${t.tenantId}::uuid`);
    }
  });
});

// One connection (PGlite) cannot hold the lock in one transaction while another asks for it.
describe.skipIf(!usingPostgres)('dispatch under the advisory lock (two connections)', () => {
  it('a dispatch that may not wait leaves the work to the one holding the lock; one that may waits for it; both then dispatch', async () => {
    await addEndpoint(h, receiver, {}, t);
    await makeUsers(h, 2, t);
    const repo = createDeliveryRepo(h.database.db);
    const undispatched = async () =>
      Number(
        ((await h.database.db.execute(sql`select count(*)::int as n from outbox_events where tenant_id = ${t.tenantId}::uuid and delivered_at is null`)) as unknown as { rows: Array<{ n: number }> }).rows[0]!.n,
      );
    expect(await undispatched()).toBe(2);

    // Another dispatcher (another instance) holds the lock until `release`.
    let release!: () => void;
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const holder = h.database.db.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(hashtext('bastion.events.dispatch'))`);
      locked();
      await new Promise<void>((resolve) => (release = resolve));
    });
    await isLocked;

    const options = { fromSeq: 0, probe: true };
    expect(await repo.dispatch(new Date(), 500, [t.tenantId], { ...options, wait: false })).toEqual({ dispatched: 0, lastSeq: null, leased: [] });
    expect(await undispatched()).toBe(2);
    let waited: { dispatched: number } | undefined;
    const waiting = repo.dispatch(new Date(), 1, [t.tenantId], { ...options, wait: true }).then((r) => (waited = r));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(waited).toBeUndefined();

    release();
    await holder;
    expect((await waiting).dispatched).toBe(1);
    // The rest, by a dispatch that waits: the lock is the whole database's, and another file's
    // worker sharing this database may hold it for a moment (one that may not wait then gets 0).
    expect((await repo.dispatch(new Date(), 500, [t.tenantId], { ...options, wait: true })).dispatched).toBe(1);
    expect(await undispatched()).toBe(0);
  });

  it('a dispatch that waited for the lock (its statement began before the holder committed) leaves what the holder dispatched, and its positions come after the holder\'s', async () => {
    const tenant = await h.newTenant();
    await addEndpoint(h, receiver, {}, tenant);
    await makeUsers(h, 2, tenant);
    const repo = createDeliveryRepo(h.database.db);
    const events = async () =>
      ((await h.database.db.execute(sql`
        select seq, delivered_at is not null as dispatched, position from outbox_events where tenant_id = ${tenant.tenantId}::uuid order by seq`)) as unknown as {
        rows: Array<{ seq: number; dispatched: boolean; position: number | null }>;
      }).rows;
    const [first, second] = await events();

    // Another dispatcher holds the lock and dispatches the first event (its position taken),
    // and commits only once the waiting dispatch's statement has begun.
    let release!: () => void;
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const holder = h.database.db.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(hashtext('bastion.events.dispatch'))`);
      await tx.execute(sql`update outbox_events set delivered_at = now(), position = nextval('outbox_events_position_seq') where seq = ${first!.seq}`);
      locked();
      await new Promise<void>((resolve) => (release = resolve));
    });
    await isLocked;
    const waiting = repo.dispatch(new Date(), 500, [tenant.tenantId], { fromSeq: 0, probe: false, wait: true });
    // The waiting statement is in PostgreSQL, blocked on the lock (its first step).
    let blocked = false;
    for (let i = 0; i < 100 && !blocked; i++) {
      const waits = (await h.database.db.execute(sql`
        select count(*)::int as n from pg_stat_activity
        where wait_event_type = 'Lock' and wait_event = 'advisory' and query like '%bastion.events.dispatch%'`)) as unknown as { rows: Array<{ n: number }> };
      blocked = waits.rows[0]!.n > 0;
      if (!blocked) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    release();
    await holder;
    expect(blocked).toBe(true);

    expect(await waiting).toMatchObject({ dispatched: 1, lastSeq: Number(second!.seq) });
    // A dispatch is one statement: one round trip (the lock, the pick, the fan-out and the positions).
    await makeUsers(h, 1, tenant);
    let dispatched = 0;
    const statements = await statementsDuring(h.database, async () => {
      dispatched = (await repo.dispatch(new Date(), 500, [tenant.tenantId], { fromSeq: 0, probe: false, wait: false })).dispatched;
    });
    expect(dispatched).toBe(1);
    expect(statements).toHaveLength(1);
    const after = await events();
    expect(after.every((e) => e.dispatched)).toBe(true);
    expect(Number(after[1]!.position)).toBeGreaterThan(Number(after[0]!.position));
    expect(Number(after[2]!.position)).toBeGreaterThan(Number(after[1]!.position));
    // The second and third events' deliveries (the holder's stand-in wrote none for the first).
    const deliveries = (await h.database.db.execute(sql`select event_seq from event_deliveries where tenant_id = ${tenant.tenantId}::uuid`)) as unknown as {
      rows: Array<{ event_seq: number }>;
    };
    expect(deliveries.rows.map((r) => Number(r.event_seq)).sort((a, b) => a - b)).toEqual([Number(second!.seq), Number(after[2]!.seq)]);
  });
});
