import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, usingPostgres, type Harness, type TestTenant } from '../helpers/harness.js';
import { addEndpoint, makeUsers, pullAll, scopedWorker } from '../helpers/events.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { createDeliveryRepo } from '../../src/modules/events/delivery-repo.js';

/**
 * Two service instances (two containers, each with its own clock and worker) on ONE
 * PostgreSQL database deliver the same tenant's events.
 */
describe.runIf(usingPostgres)('two instances on one PostgreSQL', () => {
  let a: Harness;
  let b: Harness;
  let receiver: Receiver;
  beforeAll(async () => {
    a = await createHarness({ env: { EVENTS_ALLOW_PRIVATE_URLS: 'on' } });
    b = await createHarness({ env: { EVENTS_ALLOW_PRIVATE_URLS: 'on' } });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.close();
    await a?.close();
    await b?.close();
  });

  const countIds = (path: string) => {
    const counts = new Map<string, number>();
    for (const e of receiver.acceptedAt(path)) counts.set(e.webhookId, (counts.get(e.webhookId) ?? 0) + 1);
    return counts;
  };

  it('deliver each event exactly once when both run at the same time', async () => {
    const t: TestTenant = await a.newTenant();
    const ep = await addEndpoint(a, receiver, {}, t);
    const ep2 = await addEndpoint(a, receiver, { types: ['user.created'] }, t);
    await makeUsers(a, 150, t);
    const workers = [
      scopedWorker(a, { batchSize: 10, dispatchBatchSize: 20 }, [t]),
      scopedWorker(b, { batchSize: 10, dispatchBatchSize: 20 }, [t]),
      scopedWorker(a, { batchSize: 10, dispatchBatchSize: 20 }, [t]),
      scopedWorker(b, { batchSize: 10, dispatchBatchSize: 20 }, [t]),
    ];
    const results = await Promise.all(workers.map((w) => w.drainAll(1000)));
    const stream = await pullAll(a, t);
    expect(stream).toHaveLength(150);
    expect(results.reduce((n, r) => n + r.dispatched, 0)).toBe(150);
    expect(results.reduce((n, r) => n + r.delivered, 0)).toBe(300);
    // Both instances did part of the work.
    expect(results[0]!.delivered + results[2]!.delivered).toBeGreaterThan(0);
    expect(results[1]!.delivered + results[3]!.delivered).toBeGreaterThan(0);
    for (const path of [ep.path, ep2.path]) {
      const counts = countIds(path);
      expect(counts.size).toBe(150);
      expect([...counts.values()].every((n) => n === 1)).toBe(true);
      expect([...counts.keys()].sort()).toEqual(stream.map((e) => e.id).sort());
    }
    // The stream positions are unique and increasing.
    const seqs = stream.map((e) => e.seq);
    expect(new Set(seqs).size).toBe(150);
    expect([...seqs].sort((x, y) => x - y)).toEqual(seqs);
    expect(receiver.rejected).toEqual([]);
  });

  it('an instance stopped mid-delivery loses nothing: its lease expires and the other takes over', async () => {
    const t: TestTenant = await a.newTenant();
    const ep = await addEndpoint(a, receiver, {}, t);
    await makeUsers(a, 20, t);
    const leaseMs = 30_000;
    const workerA = scopedWorker(a, { leaseMs, timeoutMs: 5_000, concurrency: 4 }, [t]);
    const workerB = scopedWorker(b, { leaseMs }, [t]);

    // A claims every row and sends, but its requests hang: it is stuck mid-delivery.
    receiver.mode = 'hang';
    const stuck = workerA.drainOnce();
    const deadline = Date.now() + 10_000;
    while (receiver.hanging < 4 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(receiver.hanging).toBe(4);

    // Before the lease ends, B finds nothing to do.
    receiver.mode = 'ok';
    expect(await workerB.drainOnce()).toMatchObject({ attempted: 0 });
    // B's clock passes A's lease: B takes every row over and delivers it.
    const later = new Date(a.clock.now().getTime() + leaseMs + 1);
    b.clock.set(later);
    a.clock.set(later); // the instances share real time
    const taken = await workerB.drainAll();
    expect(taken.delivered).toBe(20);

    // A dies: its connections are cut. Its outcome is not recorded over B's (the lease token fences it).
    receiver.cutHanging();
    expect(await stuck).toMatchObject({ attempted: 20, delivered: 0 });
    const stream = await pullAll(a, t);
    const counts = countIds(ep.path);
    expect(counts.size).toBe(20);
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
    const repo = createDeliveryRepo(a.database.db);
    for (const e of stream) expect((await repo.find(t.tenantId, ep.id, e.id))?.status).toBe('delivered');
  });
});
