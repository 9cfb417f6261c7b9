import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { addEndpoint, makeUsers, pullAll, scopedWorker } from '../helpers/events.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

let h: Harness;
let receiver: Receiver;
beforeAll(async () => {
  h = await createHarness({ env: { EVENTS_ALLOW_PRIVATE_URLS: 'on' } });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await h.close();
});

describe('event endpoints: management', () => {
  it('creates an endpoint (201, the whsec_ secret once), reads, lists, updates and deletes it', async () => {
    const created = await h.inject({
      method: 'POST',
      url: '/event-endpoints',
      headers: h.keyHeaders(),
      payload: { url: receiver.url('/a'), types: ['user.created', 'kyc.approved'], description: 'main' },
    });
    expect(created.statusCode).toBe(201);
    const body = created.json();
    expect(body).toMatchObject({ url: receiver.url('/a'), types: ['user.created', 'kyc.approved'], description: 'main', enabled: true, disabledReason: null });
    expect(body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(body.secret.slice(6), 'base64')).toHaveLength(32);

    const got = await h.inject({ method: 'GET', url: `/event-endpoints/${body.id}`, headers: h.keyHeaders() });
    expect(got.statusCode).toBe(200);
    expect(got.json()).not.toHaveProperty('secret');
    expect(got.body).not.toContain(body.secret.slice(6));
    const list = await h.inject({ method: 'GET', url: '/event-endpoints?limit=10', headers: h.keyHeaders() });
    expect(list.json()).toMatchObject({ total: 1, data: [{ id: body.id }] });

    // The secret is sealed at rest.
    const rows = await h.database.db.execute(`select secret_sealed from event_endpoints where id = '${body.id}'` as never);
    expect(JSON.stringify(rows)).not.toContain(body.secret.slice(6));

    const patched = await h.inject({ method: 'PATCH', url: `/event-endpoints/${body.id}`, headers: h.keyHeaders(), payload: { types: [], enabled: false, disabledReason: 'maintenance' } });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()).toMatchObject({ types: [], enabled: false, disabledReason: 'maintenance', disabledAt: expect.any(String) });
    const enabled = await h.inject({ method: 'PATCH', url: `/event-endpoints/${body.id}`, headers: h.keyHeaders(), payload: { enabled: true, url: receiver.url('/b') } });
    expect(enabled.json()).toMatchObject({ enabled: true, disabledReason: null, disabledAt: null, url: receiver.url('/b') });

    const audit = await h.inject({ method: 'GET', url: '/audit-events?limit=100', headers: h.keyHeaders() });
    const types = (audit.json().data as Array<{ type: string; actorType: string }>).map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(['event_endpoint.created', 'event_endpoint.updated']));

    const deleted = await h.inject({ method: 'DELETE', url: `/event-endpoints/${body.id}`, headers: h.keyHeaders() });
    expect(deleted.statusCode).toBe(204);
    expect((await h.inject({ method: 'GET', url: `/event-endpoints/${body.id}`, headers: h.keyHeaders() })).statusCode).toBe(404);
  });

  it('an admin bearer manages endpoints too', async () => {
    const admin = await h.tokenFor(await h.createUser(undefined, undefined, 'admin'));
    const res = await h.inject({ method: 'POST', url: '/event-endpoints', headers: h.bearerHeaders(admin), payload: { url: receiver.url('/admin') } });
    expect(res.statusCode).toBe(201);
    const list = await h.inject({ method: 'GET', url: '/event-endpoints', headers: h.bearerHeaders(admin) });
    expect(list.json().data.map((e: { id: string }) => e.id)).toContain(res.json().id);
    await h.inject({ method: 'DELETE', url: `/event-endpoints/${res.json().id}`, headers: h.bearerHeaders(admin) });
  });

  it('rotating the secret: the new one is shown once and both sign for 24 hours, then only the new one', async () => {
    const worker = scopedWorker(h);
    await worker.drainAll(); // events made so far are dispatched before the endpoint exists
    const ep = await addEndpoint(h, receiver);
    const rotated = await h.inject({ method: 'POST', url: `/event-endpoints/${ep.id}/rotate-secret`, headers: h.keyHeaders() });
    expect(rotated.statusCode).toBe(200);
    const { secret, previousSecretExpiresAt } = rotated.json();
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(ep.secret);
    expect(new Date(previousSecretExpiresAt).getTime()).toBe(h.clock.now().getTime() + 24 * 3_600_000);

    // Within the overlap a receiver that knows only the old secret, or only the new one, verifies.
    await makeUsers(h, 1);
    receiver.secrets.set(ep.path, [ep.secret]);
    await worker.drainAll();
    expect(receiver.acceptedAt(ep.path)).toHaveLength(1);
    expect(receiver.acceptedAt(ep.path)[0]!.signature.split(' ')).toHaveLength(2);
    receiver.secrets.set(ep.path, [secret]);
    await makeUsers(h, 1);
    await worker.drainAll();
    expect(receiver.acceptedAt(ep.path)).toHaveLength(2);

    // After it, only the new secret signs.
    h.clock.advance(24 * 3_600_000 + 1);
    receiver.secrets.set(ep.path, [ep.secret]);
    await makeUsers(h, 1);
    await worker.drainAll();
    expect(receiver.acceptedAt(ep.path)).toHaveLength(2);
    expect(receiver.rejected.some((r) => r.path === ep.path)).toBe(true);
    await h.inject({ method: 'DELETE', url: `/event-endpoints/${ep.id}`, headers: h.keyHeaders() });
  });
});

describe('GET /events: the pull stream', () => {
  it('pages the tenant events by seq and by event id, oldest first, with a cursor to poll on', async () => {
    const t = await h.newTenant();
    const worker = scopedWorker(h, {}, [t]);
    const empty = await h.inject({ method: 'GET', url: '/events', headers: h.keyHeaders(t) });
    expect(empty.json()).toEqual({ data: [], next: '0', hasMore: false });

    const users = await makeUsers(h, 5, t);
    // Events appear in the stream once dispatched (the worker's first step).
    expect((await h.inject({ method: 'GET', url: '/events', headers: h.keyHeaders(t) })).json().data).toHaveLength(0);
    await worker.drainOnce();

    const first = (await h.inject({ method: 'GET', url: '/events?limit=2', headers: h.keyHeaders(t) })).json();
    expect(first.data).toHaveLength(2);
    expect(first.hasMore).toBe(true);
    expect(first.data[0]).toMatchObject({ type: 'user.created', data: { userId: users[0] }, id: expect.any(String), timestamp: expect.any(String) });
    expect(first.next).toBe(String(first.data[1].seq));
    const second = (await h.inject({ method: 'GET', url: `/events?limit=2&after=${first.next}`, headers: h.keyHeaders(t) })).json();
    expect(second.data.map((e: { data: { userId: string } }) => e.data.userId)).toEqual(users.slice(2, 4));
    const byId = (await h.inject({ method: 'GET', url: `/events?after=${first.data[1].id}`, headers: h.keyHeaders(t) })).json();
    expect(byId.data.map((e: { data: { userId: string } }) => e.data.userId)).toEqual(users.slice(2));
    expect(byId.hasMore).toBe(false);
    const tail = (await h.inject({ method: 'GET', url: `/events?after=${byId.next}`, headers: h.keyHeaders(t) })).json();
    expect(tail).toEqual({ data: [], next: byId.next, hasMore: false });
    expect((await pullAll(h, t)).map((e) => e.data.userId)).toEqual(users);
    // Another tenant's stream holds none of them.
    expect((await pullAll(h)).some((e) => users.includes(e.data.userId as string))).toBe(false);
  });
});
