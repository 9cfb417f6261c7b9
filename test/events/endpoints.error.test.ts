import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { expectError } from '../helpers/security.js';
import { addEndpoint, scopedWorker, makeUsers } from '../helpers/events.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { MAX_ENDPOINTS_PER_TENANT } from '../../src/modules/events/errors.js';

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

const call = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown, headers = h.keyHeaders()) =>
  h.inject({ method, url, headers, payload: payload as never });
const count = async () => (await call('GET', '/event-endpoints')).json().total as number;

describe('event endpoints: errors', () => {
  it('404 EVENT_ENDPOINT_NOT_FOUND for an unknown id on every endpoint route', async () => {
    const id = randomUUID();
    expectError(await call('GET', `/event-endpoints/${id}`), 404, 'EVENT_ENDPOINT_NOT_FOUND');
    expectError(await call('PATCH', `/event-endpoints/${id}`, { enabled: false }), 404, 'EVENT_ENDPOINT_NOT_FOUND');
    expectError(await call('DELETE', `/event-endpoints/${id}`), 404, 'EVENT_ENDPOINT_NOT_FOUND');
    expectError(await call('POST', `/event-endpoints/${id}/rotate-secret`), 404, 'EVENT_ENDPOINT_NOT_FOUND');
    expectError(await call('POST', `/event-endpoints/${id}/replay`, { fromSeq: 0 }), 404, 'EVENT_ENDPOINT_NOT_FOUND');
  });

  it('400 for malformed bodies, ids and queries; nothing is created', async () => {
    const before = await count();
    const bad: unknown[] = [
      undefined,
      {},
      { url: '' },
      { url: `${receiver.url('/x')}/${'a'.repeat(2048)}` },
      { url: receiver.url('/x'), types: ['user.deleted'] },
      { url: receiver.url('/x'), types: ['user.created', 'user.created'] },
      { url: receiver.url('/x'), secret: 'whsec_mine' },
      { url: receiver.url('/x'), enabled: 'yes' },
      { url: receiver.url('/x'), description: 'd'.repeat(257) },
    ];
    for (const payload of bad) expectError(await call('POST', '/event-endpoints', payload), 400, 'VALIDATION_FAILED');
    expectError(await call('POST', '/event-endpoints', { url: 'not a url' }), 400, 'EVENT_ENDPOINT_URL_INVALID');
    expectError(await call('POST', '/event-endpoints', { url: 42 }), 400, 'VALIDATION_FAILED'); // JSON bodies are never coerced
    expectError(await call('POST', '/event-endpoints', { url: 'ftp://127.0.0.1/x' }), 400, 'EVENT_ENDPOINT_URL_SCHEME');
    expectError(await call('POST', '/event-endpoints', { url: 'http://no-such-host.invalid/x' }), 400, 'EVENT_ENDPOINT_URL_UNRESOLVABLE');
    expect(await count()).toBe(before);

    expectError(await call('GET', '/event-endpoints/not-a-uuid'), 400, 'VALIDATION_FAILED');
    expectError(await call('GET', '/event-endpoints?limit=101'), 400, 'VALIDATION_FAILED');
    expectError(await call('GET', '/event-endpoints?foo=1'), 400, 'VALIDATION_FAILED');
    expectError(await call('GET', '/events?limit=0'), 400, 'VALIDATION_FAILED');
    expectError(await call('GET', '/events?after=-1'), 400, 'VALIDATION_FAILED');
    expectError(await call('GET', "/events?after=1'%20or%201=1"), 400, 'VALIDATION_FAILED');
    expectError(await call('GET', `/events?after=${randomUUID()}`), 400, 'EVENTS_CURSOR_UNKNOWN');
  });

  it('400 for bad updates, leaving the endpoint unchanged', async () => {
    const ep = await addEndpoint(h, receiver, { types: ['user.created'] });
    const url = `/event-endpoints/${ep.id}`;
    expectError(await call('PATCH', url, {}), 400, 'EVENT_ENDPOINT_UPDATE_EMPTY');
    expectError(await call('PATCH', url, { types: ['nope'] }), 400, 'VALIDATION_FAILED');
    expectError(await call('PATCH', url, { id: randomUUID() }), 400, 'VALIDATION_FAILED');
    expectError(await call('PATCH', url, { url: 'gopher://127.0.0.1/' }), 400, 'EVENT_ENDPOINT_URL_SCHEME');
    expectError(await call('PATCH', url, { url: 'http://user:pw@127.0.0.1/' }), 400, 'EVENT_ENDPOINT_URL_CREDENTIALS');
    expect((await call('GET', url)).json()).toMatchObject({ url: receiver.url(ep.path), types: ['user.created'], enabled: true });
  });

  it('400 EVENT_REPLAY_RANGE_INVALID for a missing, mixed or reversed range; nothing queued', async () => {
    const worker = scopedWorker(h);
    const ep = await addEndpoint(h, receiver);
    await makeUsers(h, 1);
    await worker.drainAll();
    const delivered = receiver.acceptedAt(ep.path).length;
    const url = `/event-endpoints/${ep.id}/replay`;
    const now = new Date().toISOString();
    for (const payload of [{}, { to: now }, { toSeq: 5 }, { from: now, fromSeq: 1 }, { from: now, to: new Date(Date.now() - 1000).toISOString() }, { fromSeq: 5, toSeq: 4 }]) {
      expectError(await call('POST', url, payload), 400, 'EVENT_REPLAY_RANGE_INVALID');
    }
    for (const payload of [{ from: 'yesterday' }, { fromSeq: -1 }, { fromSeq: 1.5 }, { fromSeq: 1, extra: true }]) {
      expectError(await call('POST', url, payload), 400, 'VALIDATION_FAILED');
    }
    await worker.drainAll();
    expect(receiver.acceptedAt(ep.path)).toHaveLength(delivered);
  });

  it(`409 EVENT_ENDPOINT_LIMIT beyond ${MAX_ENDPOINTS_PER_TENANT} endpoints`, async () => {
    const t = await h.newTenant();
    for (let i = 0; i < MAX_ENDPOINTS_PER_TENANT; i++) await addEndpoint(h, receiver, {}, t);
    expectError(await call('POST', '/event-endpoints', { url: receiver.url('/one-too-many') }, h.keyHeaders(t)), 409, 'EVENT_ENDPOINT_LIMIT');
    expect((await call('GET', '/event-endpoints', undefined, h.keyHeaders(t))).json().total).toBe(MAX_ENDPOINTS_PER_TENANT);
  });
});
