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
    const api = h.api(h.keyHeaders());
    const created = await api.POST('/event-endpoints', { body: { url: receiver.url('/a'), types: ['user.created', 'kyc.approved'], description: 'main' } });
    expect(created.response.status).toBe(201);
    const body = created.data!;
    expect(body).toMatchObject({ url: receiver.url('/a'), types: ['user.created', 'kyc.approved'], description: 'main', enabled: true, disabledReason: null });
    expect(body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(body.secret.slice(6), 'base64')).toHaveLength(32);

    const byId = { params: { path: { id: body.id } } };
    const got = await api.GET('/event-endpoints/{id}', byId);
    expect(got.response.status).toBe(200);
    expect(got.data).not.toHaveProperty('secret');
    expect(JSON.stringify(got.data)).not.toContain(body.secret.slice(6));
    const list = await api.GET('/event-endpoints', { params: { query: { limit: 10 } } });
    expect(list.data).toMatchObject({ total: 1, data: [{ id: body.id }] });

    // The secret is sealed at rest.
    const rows = await h.database.db.execute(`select secret_sealed from event_endpoints where id = '${body.id}'` as never);
    expect(JSON.stringify(rows)).not.toContain(body.secret.slice(6));

    const patched = await api.PATCH('/event-endpoints/{id}', { ...byId, body: { types: [], enabled: false, disabledReason: 'maintenance' } });
    expect(patched.response.status).toBe(200);
    expect(patched.data).toMatchObject({ types: [], enabled: false, disabledReason: 'maintenance', disabledAt: expect.any(String) });
    const enabled = await api.PATCH('/event-endpoints/{id}', { ...byId, body: { enabled: true, url: receiver.url('/b') } });
    expect(enabled.data).toMatchObject({ enabled: true, disabledReason: null, disabledAt: null, url: receiver.url('/b') });

    const audit = await api.GET('/audit-events', { params: { query: { limit: 100 } } });
    const types = audit.data!.data.map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(['event_endpoint.created', 'event_endpoint.updated']));

    const deleted = await api.DELETE('/event-endpoints/{id}', byId);
    expect(deleted.response.status).toBe(204);
    expect((await api.GET('/event-endpoints/{id}', byId)).response.status).toBe(404);
  });

  it('an admin bearer manages endpoints too', async () => {
    const admin = await h.tokenFor(await h.createUser(undefined, undefined, 'admin'));
    const api = h.api(h.bearerHeaders(admin));
    const res = await api.POST('/event-endpoints', { body: { url: receiver.url('/admin') } });
    expect(res.response.status).toBe(201);
    const list = await api.GET('/event-endpoints');
    expect(list.data!.data.map((e) => e.id)).toContain(res.data!.id);
    await api.DELETE('/event-endpoints/{id}', { params: { path: { id: res.data!.id } } });
  });

  it('rotating the secret: the new one is shown once and both sign for 24 hours, then only the new one', async () => {
    const worker = scopedWorker(h);
    await worker.drainAll(); // events made so far are dispatched before the endpoint exists
    const ep = await addEndpoint(h, receiver);
    const rotated = await h.api(h.keyHeaders()).POST('/event-endpoints/{id}/rotate-secret', { params: { path: { id: ep.id } } });
    expect(rotated.response.status).toBe(200);
    const { secret, previousSecretExpiresAt } = rotated.data!;
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
    await h.api(h.keyHeaders()).DELETE('/event-endpoints/{id}', { params: { path: { id: ep.id } } });
  });
});

describe('GET /events: the pull stream', () => {
  it('pages the tenant events by seq and by event id, oldest first, with a cursor to poll on', async () => {
    const t = await h.newTenant();
    const worker = scopedWorker(h, {}, [t]);
    const api = h.api(h.keyHeaders(t));
    const empty = await api.GET('/events');
    expect(empty.data).toEqual({ data: [], next: '0', hasMore: false });

    const users = await makeUsers(h, 5, t);
    // Events appear in the stream once dispatched (the worker's first step).
    expect((await api.GET('/events')).data!.data).toHaveLength(0);
    await worker.drainOnce();

    const first = (await api.GET('/events', { params: { query: { limit: 2 } } })).data!;
    expect(first.data).toHaveLength(2);
    expect(first.hasMore).toBe(true);
    expect(first.data[0]).toMatchObject({ type: 'user.created', data: { userId: users[0] }, id: expect.any(String), timestamp: expect.any(String) });
    expect(first.next).toBe(String(first.data[1]!.seq));
    const second = (await api.GET('/events', { params: { query: { limit: 2, after: first.next } } })).data!;
    expect(second.data.map((e) => e.data.userId)).toEqual(users.slice(2, 4));
    const byId = (await api.GET('/events', { params: { query: { after: first.data[1]!.id } } })).data!;
    expect(byId.data.map((e) => e.data.userId)).toEqual(users.slice(2));
    expect(byId.hasMore).toBe(false);
    const tail = (await api.GET('/events', { params: { query: { after: byId.next } } })).data!;
    expect(tail).toEqual({ data: [], next: byId.next, hasMore: false });
    expect((await pullAll(h, t)).map((e) => e.data.userId)).toEqual(users);
    // Another tenant's stream holds none of them.
    expect((await pullAll(h)).some((e) => users.includes(e.data.userId as string))).toBe(false);
  });
});
