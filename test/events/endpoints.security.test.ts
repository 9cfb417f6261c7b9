import { createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness, type TestTenant } from '../helpers/harness.js';
import { expectError, routeCases } from '../helpers/security.js';
import { addEndpoint, makeUsers, pullAll, scopedWorker, type CreatedEndpoint } from '../helpers/events.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { createDeliveryRepo } from '../../src/modules/events/delivery-repo.js';
import { loadConfig } from '../../src/config.js';
import { checkOutboundUrl, isPublicAddress, postOutbound } from '../../src/platform/http/outbound.js';

let h: Harness;
let receiver: Receiver;
let ep: CreatedEndpoint;
beforeAll(async () => {
  h = await createHarness({ env: { EVENTS_ALLOW_PRIVATE_URLS: 'on' } });
  receiver = await startReceiver();
  ep = await addEndpoint(h, receiver);
});
afterAll(async () => {
  await receiver.close();
  await h.close();
});

const admin = { apiKey: true, bearer: 'admin' } as const;

/**
 * An endpoint of another tenant, created through its API key; afterwards it must read back as
 * created, and that tenant's audit log must hold nothing but its creation.
 */
let foreignEp: { tenant: TestTenant; endpoint: Record<string, unknown> } | undefined;
async function otherTenantsEndpoint(): Promise<string> {
  const tenant = await h.newTenant();
  const res = await h.inject({ method: 'POST', url: '/event-endpoints', headers: h.keyHeaders(tenant), payload: { url: receiver.url('/foreign') } });
  expect(res.statusCode, res.body).toBe(201);
  const { secret: _secret, ...endpoint } = res.json() as Record<string, unknown>;
  foreignEp = { tenant, endpoint };
  return endpoint.id as string;
}
async function foreignEndpointUnchanged(): Promise<void> {
  const { tenant, endpoint } = foreignEp!;
  const res = await h.inject({ method: 'GET', url: `/event-endpoints/${endpoint.id as string}`, headers: h.keyHeaders(tenant) });
  expect(res.statusCode).toBe(200);
  expect(res.json()).toEqual(endpoint);
  const audit = await h.inject({ method: 'GET', url: '/audit-events?limit=100', headers: h.keyHeaders(tenant) });
  const types = (audit.json() as { data: Array<{ type: string }> }).data.map((e) => e.type).filter((t) => t.startsWith('event_endpoint.'));
  expect(types).toEqual(['event_endpoint.created']);
}
const foreignCase = (path: (id: string) => string) => ({
  foreign: async () => path(await otherTenantsEndpoint()),
  unchanged: foreignEndpointUnchanged,
});

routeCases(() => h, 'POST /event-endpoints', { url: () => '/event-endpoints', payload: () => ({ url: receiver.url('/s') }), accepts: admin });
routeCases(() => h, 'GET /event-endpoints', { url: () => '/event-endpoints', accepts: admin });
routeCases(() => h, 'GET /event-endpoints/{id}', { url: () => `/event-endpoints/${ep.id}`, accepts: admin, foreign: async () => `/event-endpoints/${await otherTenantsEndpoint()}` });
routeCases(() => h, 'PATCH /event-endpoints/{id}', {
  url: () => `/event-endpoints/${ep.id}`,
  payload: () => ({ enabled: false }),
  accepts: admin,
  ...foreignCase((id) => `/event-endpoints/${id}`),
});
routeCases(() => h, 'DELETE /event-endpoints/{id}', { url: () => `/event-endpoints/${ep.id}`, accepts: admin, ...foreignCase((id) => `/event-endpoints/${id}`) });
routeCases(() => h, 'POST /event-endpoints/{id}/rotate-secret', {
  url: () => `/event-endpoints/${ep.id}/rotate-secret`,
  accepts: admin,
  ...foreignCase((id) => `/event-endpoints/${id}/rotate-secret`),
});
routeCases(() => h, 'POST /event-endpoints/{id}/replay', {
  url: () => `/event-endpoints/${ep.id}/replay`,
  payload: () => ({ fromSeq: 0 }),
  accepts: admin,
  ...foreignCase((id) => `/event-endpoints/${id}/replay`),
});
routeCases(() => h, 'GET /event-endpoints/{id}/deliveries', {
  url: () => `/event-endpoints/${ep.id}/deliveries`,
  accepts: admin,
  foreign: async () => `/event-endpoints/${await otherTenantsEndpoint()}/deliveries`,
});
routeCases(() => h, 'POST /event-endpoints/{id}/test', {
  url: () => `/event-endpoints/${ep.id}/test`,
  accepts: admin,
  ...foreignCase((id) => `/event-endpoints/${id}/test`),
});
/** A delivery of another tenant's endpoint (its user.created event). */
async function otherTenantsDelivery(): Promise<{ tenant: TestTenant; endpointId: string; eventId: string }> {
  const endpointId = await otherTenantsEndpoint();
  const tenant = foreignEp!.tenant;
  await makeUsers(h, 1, tenant);
  // Its receiver answers 500 (the attempt is logged; the receiver's rejected list stays this tenant's).
  receiver.mode = 'fail';
  try {
    await scopedWorker(h, {}, [tenant]).drainAll();
  } finally {
    receiver.mode = 'ok';
  }
  const [event] = await pullAll(h, tenant);
  return { tenant, endpointId, eventId: event!.id };
}
let ownDelivery: string | undefined;
async function ownEventId(): Promise<string> {
  if (!ownDelivery) {
    receiver.mode = 'fail';
    await makeUsers(h, 1);
    await scopedWorker(h).drainOnce();
    receiver.mode = 'ok';
    const res = await h.inject({ method: 'GET', url: `/event-endpoints/${ep.id}/deliveries?status=pending`, headers: h.keyHeaders() });
    ownDelivery = (res.json() as { data: Array<{ eventId: string }> }).data[0]!.eventId;
  }
  return ownDelivery;
}
let ownEvent = '00000000-0000-7000-8000-000000000000';
beforeAll(async () => {
  ownEvent = await ownEventId();
});
routeCases(() => h, 'POST /event-endpoints/{id}/deliveries/{eventId}/retry', {
  url: () => `/event-endpoints/${ep.id}/deliveries/${ownEvent}/retry`,
  accepts: admin,
  foreign: async () => {
    const foreign = await otherTenantsDelivery();
    return `/event-endpoints/${foreign.endpointId}/deliveries/${foreign.eventId}/retry`;
  },
  unchanged: foreignEndpointUnchanged,
});
routeCases(() => h, 'GET /events', { url: () => '/events', accepts: { apiKey: true } });

describe('event endpoint routes: tenant and credential', () => {
  it('the endpoint is untouched by all of the above', async () => {
    const res = await h.inject({ method: 'GET', url: `/event-endpoints/${ep.id}`, headers: h.keyHeaders() });
    expect(res.json()).toMatchObject({ id: ep.id, enabled: true, url: receiver.url(ep.path) });
  });
});

describe("another tenant's endpoint", () => {
  let other: TestTenant;
  beforeAll(async () => {
    other = await h.newTenant();
  });
  it('is 404 on every route and changes nothing', async () => {
    const headers = h.keyHeaders(other);
    const base = `/event-endpoints/${ep.id}`;
    expectError(await h.inject({ method: 'GET', url: base, headers }), 404, 'EVENT_ENDPOINT_NOT_FOUND');
    expectError(await h.inject({ method: 'PATCH', url: base, headers, payload: { enabled: false } }), 404, 'EVENT_ENDPOINT_NOT_FOUND');
    expectError(await h.inject({ method: 'DELETE', url: base, headers }), 404, 'EVENT_ENDPOINT_NOT_FOUND');
    expectError(await h.inject({ method: 'POST', url: `${base}/rotate-secret`, headers }), 404, 'EVENT_ENDPOINT_NOT_FOUND');
    expectError(await h.inject({ method: 'POST', url: `${base}/replay`, headers, payload: { fromSeq: 0 } }), 404, 'EVENT_ENDPOINT_NOT_FOUND');
    expectError(await h.inject({ method: 'GET', url: `${base}/deliveries`, headers }), 404, 'EVENT_ENDPOINT_NOT_FOUND');
    expectError(await h.inject({ method: 'POST', url: `${base}/test`, headers }), 404, 'EVENT_ENDPOINT_NOT_FOUND');
    expectError(await h.inject({ method: 'POST', url: `${base}/deliveries/${await ownEventId()}/retry`, headers }), 404, 'EVENT_ENDPOINT_NOT_FOUND');
    expect((await h.inject({ method: 'GET', url: '/event-endpoints', headers })).json()).toEqual({ total: 0, data: [] });

    // Still the owner's, enabled, with the same secret: a delivery verifies under it.
    const owner = await h.inject({ method: 'GET', url: base, headers: h.keyHeaders() });
    expect(owner.json()).toMatchObject({ enabled: true });
    await makeUsers(h, 1);
    await scopedWorker(h).drainAll();
    expect(receiver.acceptedAt(ep.path).length).toBeGreaterThan(0);
    expect(receiver.rejected).toEqual([]);
  });

  it("an event id of another tenant is no cursor, and another tenant's events never reach this one's endpoints", async () => {
    await makeUsers(h, 1, other);
    await scopedWorker(h, {}, [h.tenant, other]).drainAll();
    const [foreign] = await pullAll(h, other);
    expectError(await h.inject({ method: 'GET', url: `/events?after=${foreign!.id}`, headers: h.keyHeaders() }), 400, 'EVENTS_CURSOR_UNKNOWN');
    expect(receiver.accepted.some((e) => e.webhookId === foreign!.id)).toBe(false);
  });
});

describe("another tenant's delivery", () => {
  it("is 404 under this tenant's own endpoint too, and is left as it was", async () => {
    const foreign = await otherTenantsDelivery();
    expectError(
      await h.inject({ method: 'POST', url: `/event-endpoints/${ep.id}/deliveries/${foreign.eventId}/retry`, headers: h.keyHeaders() }),
      404,
      'EVENT_DELIVERY_NOT_FOUND',
    );
    const own = await h.inject({ method: 'GET', url: `/event-endpoints/${ep.id}/deliveries?limit=100`, headers: h.keyHeaders() });
    expect((own.json() as { data: Array<{ eventId: string }> }).data.map((d) => d.eventId)).not.toContain(foreign.eventId);
    const theirs = await h.inject({ method: 'GET', url: `/event-endpoints/${foreign.endpointId}/deliveries`, headers: h.keyHeaders(foreign.tenant) });
    expect(theirs.json()).toMatchObject({ total: 1, data: [{ eventId: foreign.eventId, attempts: 1, lastStatusCode: 500 }] });
  });
});

describe('SSRF: endpoint URLs must be https to a public address unless EVENTS_ALLOW_PRIVATE_URLS=on', () => {
  let strict: Harness;
  beforeAll(async () => {
    strict = await createHarness();
  });
  afterAll(async () => {
    await strict.close();
  });
  const create = (url: string) => strict.inject({ method: 'POST', url: '/event-endpoints', headers: strict.keyHeaders(), payload: { url } });

  it('refuses http, and every non-public address however it is written (400, nothing created)', async () => {
    expectError(await create(receiver.url('/x')), 400, 'EVENT_ENDPOINT_URL_SCHEME');
    expectError(await create('http://93.184.215.14/hook'), 400, 'EVENT_ENDPOINT_URL_SCHEME');
    const refused = [
      'https://127.0.0.1/hook',
      'https://127.1.2.3/hook',
      'https://2130706433/hook', // 127.0.0.1 as one number
      'https://0x7f.1/hook', // 127.0.0.1 in hex
      'https://10.0.0.1/hook',
      'https://172.16.5.4/hook',
      'https://192.168.1.1/hook',
      'https://169.254.169.254/latest/meta-data/', // cloud metadata
      'https://100.64.0.1/hook', // CGNAT
      'https://100.100.100.200/hook', // metadata in CGNAT space
      'https://0.0.0.0/hook',
      'https://255.255.255.255/hook',
      'https://224.0.0.1/hook',
      'https://[::1]/hook',
      'https://[::]/hook',
      'https://[fd00:ec2::254]/hook', // ULA (AWS metadata over IPv6)
      'https://[fc00::1]/hook',
      'https://[fe80::1]/hook',
      'https://[::ffff:127.0.0.1]/hook', // IPv4-mapped
      'https://[::ffff:a00:1]/hook',
      'https://[64:ff9b::7f00:1]/hook', // NAT64 of 127.0.0.1
      'https://localhost/hook', // a name resolving to 127.0.0.1
    ];
    for (const url of refused) {
      const res = await create(url);
      expect(res.statusCode, url).toBe(400);
      expect(res.json().code, url).toBe('EVENT_ENDPOINT_URL_PRIVATE_ADDRESS');
    }
    expectError(await create('https://user:secret@93.184.215.14/hook'), 400, 'EVENT_ENDPOINT_URL_CREDENTIALS');
    expect((await strict.inject({ method: 'GET', url: '/event-endpoints', headers: strict.keyHeaders() })).json().total).toBe(0);

    // A public address is accepted; moving it to a private one is refused.
    const ok = await create('https://93.184.215.14/hook');
    expect(ok.statusCode).toBe(201);
    const moved = await strict.inject({ method: 'PATCH', url: `/event-endpoints/${ok.json().id}`, headers: strict.keyHeaders(), payload: { url: 'https://[::1]:8443/x' } });
    expectError(moved, 400, 'EVENT_ENDPOINT_URL_PRIVATE_ADDRESS');
  });

  it('EVENTS_ALLOW_PRIVATE_URLS is off by default and takes only on or off', () => {
    expect(loadConfig({}).eventsAllowPrivateUrls).toBe(false);
    expect(loadConfig({ EVENTS_ALLOW_PRIVATE_URLS: 'on' }).eventsAllowPrivateUrls).toBe(true);
    expect(() => loadConfig({ EVENTS_ALLOW_PRIVATE_URLS: 'yes please' })).toThrow(/EVENTS_ALLOW_PRIVATE_URLS must be on or off/);
  });

  it('the guard classifies addresses as the rule says', () => {
    for (const a of ['93.184.215.14', '8.8.8.8', '2606:4700:4700::1111']) expect(isPublicAddress(a), a).toBe(true);
    for (const a of ['127.0.0.1', '10.1.1.1', '100.64.1.1', '169.254.1.1', '::1', 'fd12::1', 'fe80::2', '::ffff:8.8.8.8', 'nonsense']) expect(isPublicAddress(a), a).toBe(false);
  });

  it('checks again at delivery: a URL admitted under the test setting is refused once it is off', async () => {
    const t = await h.newTenant();
    const httpEp = await addEndpoint(h, receiver, {}, t);
    const port = receiver.port;
    // https to a name that resolves to loopback: refused at connect time by the address check.
    const created = await h.inject({ method: 'POST', url: '/event-endpoints', headers: h.keyHeaders(t), payload: { url: `https://localhost:${port}/tls` } });
    expect(created.statusCode).toBe(201);
    await makeUsers(h, 1, t);
    const before = receiver.attempts.length;
    h.container.config.eventsAllowPrivateUrls = false;
    try {
      expect(await scopedWorker(h, {}, [t]).drainAll()).toMatchObject({ attempted: 2, delivered: 0 });
    } finally {
      h.container.config.eventsAllowPrivateUrls = true;
    }
    expect(receiver.attempts.length).toBe(before);
    const [event] = await pullAll(h, t);
    const repo = createDeliveryRepo(h.database.db);
    expect((await repo.find(t.tenantId, httpEp.id, event!.id))!.lastError).toMatch(/^URL_SCHEME/);
    expect((await repo.find(t.tenantId, created.json().id, event!.id))!.lastError).toMatch(/^URL_PRIVATE_ADDRESS/);
  });

  it('the outbound guard refuses loopback at connect time, before any connection, and allows it only when told', async () => {
    const post = { headers: { 'content-type': 'application/json' }, body: '{}', timeoutMs: 2_000 };
    // A listener on loopback counts the connections that reach it: a refusal opens none.
    let connections = 0;
    const listener = createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const port = (listener.address() as AddressInfo).port;
    const refused = { name: 'OutboundRefusedError', reason: 'URL_PRIVATE_ADDRESS' };
    try {
      // localhost by name (the lookup is refused), the address itself, IPv6 loopback, IPv4-mapped.
      await expect(postOutbound(`https://localhost:${port}/x`, post, { allowPrivate: false })).rejects.toMatchObject(refused);
      await expect(postOutbound(`https://127.0.0.1:${port}/x`, post, { allowPrivate: false })).rejects.toMatchObject(refused);
      await expect(postOutbound(`https://[::1]:${port}/x`, post, { allowPrivate: false })).rejects.toMatchObject(refused);
      await expect(postOutbound(`https://[::ffff:127.0.0.1]:${port}/x`, post, { allowPrivate: false })).rejects.toMatchObject(refused);
      // The loopback-only setting admits loopback and nothing else private; allowPrivate keeps 0.0.0.0 out.
      await expect(postOutbound(`https://10.255.255.1:${port}/x`, post, { allowPrivate: false, allowLoopback: true })).rejects.toMatchObject(refused);
      await expect(postOutbound(`http://0.0.0.0:${port}/x`, post, { allowPrivate: true })).rejects.toMatchObject(refused);
      expect(connections).toBe(0);
      await expect(postOutbound(`http://127.0.0.1:${port}/x`, post, { allowPrivate: false, allowLoopback: true })).rejects.not.toMatchObject(refused);
      expect(connections).toBe(1);
    } finally {
      await new Promise((resolve) => listener.close(resolve));
    }
    await expect(postOutbound(receiver.url('/x'), post, { allowPrivate: false })).rejects.toThrow(/must use https/);
    expect((await postOutbound(receiver.url('/x'), post, { allowPrivate: true })).status).toBe(400); // reached; no signature
    await expect(checkOutboundUrl('http://localhost/x', { allowPrivate: true })).resolves.toBeInstanceOf(URL);
    await expect(checkOutboundUrl('http://0.0.0.0/x', { allowPrivate: true })).rejects.toThrow(/non-public/);
  });
});
