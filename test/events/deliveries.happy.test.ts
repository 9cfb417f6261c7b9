import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness, type TestTenant } from '../helpers/harness.js';
import { addEndpoint, makeUsers, pullAll, scopedWorker } from '../helpers/events.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { expectError } from '../helpers/security.js';
import type { paths } from '../../clients/typescript/src/schema.js';

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
beforeEach(async () => {
  t = await h.newTenant();
  receiver.mode = 'ok';
});

type LogQuery = NonNullable<paths['/event-endpoints/{id}/deliveries']['get']['parameters']['query']>;
const log = async (endpointId: string, query: LogQuery = {}) => {
  const res = await h.api(h.keyHeaders(t)).GET('/event-endpoints/{id}/deliveries', { params: { path: { id: endpointId }, query } });
  expect(res.response.status, JSON.stringify(res.error)).toBe(200);
  return res.data!;
};
const sendTest = (endpointId: string) => h.api(h.keyHeaders(t)).POST('/event-endpoints/{id}/test', { params: { path: { id: endpointId } } });
const retry = (endpointId: string, eventId: string) =>
  h.api(h.keyHeaders(t)).POST('/event-endpoints/{id}/deliveries/{eventId}/retry', { params: { path: { id: endpointId, eventId } } });
// Raw, for the refusals checked by expectError.
const post = (url: string) => h.inject({ method: 'POST', url, headers: h.keyHeaders(t) });
const auditTypes = async () => (await h.api(h.keyHeaders(t)).GET('/audit-events', { params: { query: { limit: 100 } } })).data!.data;

describe('the delivery log', () => {
  it('lists the endpoint deliveries newest first with attempts, status code, error and next attempt; pages by beforeId; filters by status', async () => {
    const worker = scopedWorker(h, {}, [t]);
    const ep = await addEndpoint(h, receiver, {}, t);
    await makeUsers(h, 3, t);
    await worker.drainAll();
    const stream = await pullAll(h, t);
    const page = await log(ep.id);
    expect(page.total).toBe(3);
    expect(page.data.map((d) => d.eventId)).toEqual(stream.map((e) => e.id).reverse());
    expect(page.data[0]).toMatchObject({ eventType: 'user.created', status: 'delivered', attempts: 1, lastStatusCode: 204, lastError: null, nextAttemptAt: null });
    expect(page.data[0]!.deliveredAt).toEqual(expect.any(String));

    // A failing attempt: the status code, the error and when the next attempt is due.
    receiver.mode = 'fail';
    await makeUsers(h, 1, t);
    await worker.drainOnce();
    const failing = await log(ep.id, { status: 'pending' });
    expect(failing.total).toBe(1);
    expect(failing.data[0]).toMatchObject({ status: 'pending', attempts: 1, lastStatusCode: 500, lastError: 'HTTP 500', deliveredAt: null });
    expect(new Date(failing.data[0]!.nextAttemptAt!).getTime()).toBe(h.clock.now().getTime() + 5_000);

    // Keyset paging: two pages of two, no overlap, same order.
    const first = await log(ep.id, { limit: 2 });
    const second = await log(ep.id, { limit: 2, beforeId: first.data[1]!.eventId });
    expect(first.total).toBe(4);
    expect([...first.data, ...second.data].map((d) => d.eventId)).toEqual((await log(ep.id)).data.map((d) => d.eventId));
    expect((await log(ep.id, { status: 'delivered' })).total).toBe(3);
    expect((await log(ep.id, { status: 'failed' })).total).toBe(0);

    // Another endpoint of the same tenant has its own log.
    const other = await addEndpoint(h, receiver, { types: ['user.updated'] }, t);
    expect(await log(other.id)).toEqual({ total: 0, data: [] });
  });
});

describe('the test event', () => {
  it('is signed like every event, sent to that endpoint only, never in the pull stream nor in a replay', async () => {
    const worker = scopedWorker(h, {}, [t]);
    const ep = await addEndpoint(h, receiver, { types: ['user.updated'] }, t);
    const bystander = await addEndpoint(h, receiver, {}, t);
    const res = await sendTest(ep.id);
    expect(res.response.status, JSON.stringify(res.error)).toBe(202);
    const queued = res.data!;
    expect(queued).toMatchObject({ eventType: 'endpoint.test', status: 'pending', attempts: 0, lastStatusCode: null });

    expect(await worker.drainAll()).toMatchObject({ dispatched: 0, attempted: 1, delivered: 1 });
    const [received] = receiver.acceptedAt(ep.path); // verified with the endpoint's secret by the receiver
    expect(received).toMatchObject({ webhookId: queued.eventId, type: 'endpoint.test' });
    expect(received!.body.data).toEqual({ endpointId: ep.id, message: 'A test event sent on request', actor: { type: 'apiKey', id: expect.any(String) } });
    expect(receiver.rejected).toEqual([]);
    expect(receiver.acceptedAt(bystander.path)).toEqual([]);
    expect(await pullAll(h, t)).toEqual([]);
    expect((await log(ep.id)).data).toEqual([expect.objectContaining({ eventId: queued.eventId, status: 'delivered', attempts: 1, lastStatusCode: 204 })]);

    // A replay by time, over the whole range, sends it to nobody.
    const replay = await h.api(h.keyHeaders(t)).POST('/event-endpoints/{id}/replay', { params: { path: { id: bystander.id } }, body: { from: '2000-01-01T00:00:00Z' } });
    expect(replay.data).toEqual({ queued: 0 });
    const again = await h.api(h.keyHeaders(t)).POST('/event-endpoints/{id}/replay', { params: { path: { id: ep.id } }, body: { from: '2000-01-01T00:00:00Z' } });
    expect(again.data).toEqual({ queued: 0 });

    const audit = (await auditTypes()).find((e) => e.type === 'event_endpoint.tested');
    expect(audit?.details).toEqual({ endpointId: ep.id, eventId: queued.eventId });
  });

  it('is tried once: a failure is in the log and never disables the endpoint; retried by id it is delivered', async () => {
    const worker = scopedWorker(h, {}, [t]);
    const ep = await addEndpoint(h, receiver, {}, t);
    receiver.mode = 'fail';
    const queued = (await sendTest(ep.id)).data!;
    await worker.drainAll();
    h.clock.advance(3_600_000);
    expect(await worker.drainAll()).toMatchObject({ attempted: 0 });
    expect((await log(ep.id)).data).toEqual([expect.objectContaining({ eventId: queued.eventId, status: 'failed', attempts: 1, lastStatusCode: 500, lastError: 'HTTP 500', nextAttemptAt: null })]);
    const endpoint = await h.api(h.keyHeaders(t)).GET('/event-endpoints/{id}', { params: { path: { id: ep.id } } });
    expect(endpoint.data).toMatchObject({ enabled: true, disabledReason: null });

    receiver.mode = 'ok';
    const retried = await retry(ep.id, queued.eventId);
    expect(retried.response.status, JSON.stringify(retried.error)).toBe(202);
    expect(retried.data).toMatchObject({ eventId: queued.eventId, eventType: 'endpoint.test', status: 'pending', attempts: 1, nextAttemptAt: h.clock.now().toISOString() });
    expect(await worker.drainAll()).toMatchObject({ attempted: 1, delivered: 1 });
    expect((await log(ep.id)).data[0]).toMatchObject({ status: 'delivered', attempts: 2, lastStatusCode: 204, lastError: null });
    expect(receiver.acceptedAt(ep.path).map((e) => e.webhookId)).toEqual([queued.eventId]);
  });

  it('is refused for a disabled endpoint (409), nothing queued', async () => {
    const ep = await addEndpoint(h, receiver, { enabled: false }, t);
    expectError(await post(`/event-endpoints/${ep.id}/test`), 409, 'EVENT_ENDPOINT_DISABLED');
    expect((await log(ep.id)).total).toBe(0);
  });
});

describe('retry by id', () => {
  it('makes a pending delivery waiting for its backoff due now (202), with a fresh retry window', async () => {
    const worker = scopedWorker(h, {}, [t]);
    const ep = await addEndpoint(h, receiver, {}, t);
    await makeUsers(h, 1, t);
    receiver.mode = 'fail';
    await worker.drainAll();
    const [waiting] = (await log(ep.id)).data;
    expect(waiting).toMatchObject({ status: 'pending', attempts: 1 });
    expect(await worker.drainAll()).toMatchObject({ attempted: 0 }); // not due yet

    receiver.mode = 'ok';
    h.clock.advance(1_000);
    const res = await retry(ep.id, waiting!.eventId);
    expect(res.response.status, JSON.stringify(res.error)).toBe(202);
    expect(res.data).toMatchObject({ status: 'pending', attempts: 1, eventType: 'user.created', queuedAt: h.clock.now().toISOString(), nextAttemptAt: h.clock.now().toISOString() });
    expect(await worker.drainAll()).toMatchObject({ attempted: 1, delivered: 1 });
    expect((await auditTypes()).find((e) => e.type === 'event_endpoint.delivery_retried')?.details).toEqual({
      endpointId: ep.id,
      eventId: waiting!.eventId,
      was: 'pending',
      attempts: 1,
    });

    // Delivered: 409, replay is the way to send it again.
    expectError(await post(`/event-endpoints/${ep.id}/deliveries/${waiting!.eventId}/retry`), 409, 'EVENT_DELIVERY_DELIVERED');
  });

  it('refuses an attempt in flight (409), a disabled endpoint (409), and an event the endpoint was not sent (404)', async () => {
    const ep = await addEndpoint(h, receiver, {}, t);
    const narrow = await addEndpoint(h, receiver, { types: ['user.updated'] }, t);
    await makeUsers(h, 1, t);
    receiver.mode = 'hang';
    const worker = scopedWorker(h, { timeoutMs: 1_000 }, [t]);
    const round = worker.drainOnce();
    for (let i = 0; i < 100 && receiver.hanging === 0; i++) await new Promise((r) => setTimeout(r, 20));
    const [inFlight] = (await log(ep.id)).data;
    expectError(await post(`/event-endpoints/${ep.id}/deliveries/${inFlight!.eventId}/retry`), 409, 'EVENT_DELIVERY_IN_FLIGHT');
    receiver.cutHanging();
    await round;

    // The narrow endpoint was never sent the user.created event.
    expectError(await post(`/event-endpoints/${narrow.id}/deliveries/${inFlight!.eventId}/retry`), 404, 'EVENT_DELIVERY_NOT_FOUND');

    const disabled = await h.api(h.keyHeaders(t)).PATCH('/event-endpoints/{id}', { params: { path: { id: ep.id } }, body: { enabled: false } });
    expect(disabled.response.status, JSON.stringify(disabled.error)).toBe(200);
    expectError(await post(`/event-endpoints/${ep.id}/deliveries/${inFlight!.eventId}/retry`), 409, 'EVENT_ENDPOINT_DISABLED');
    // Parked while disabled: no next attempt shown.
    expect((await log(ep.id)).data[0]).toMatchObject({ status: 'pending', nextAttemptAt: null });
  });
});
