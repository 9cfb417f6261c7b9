import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../src/modules/events/event-types.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { addEndpoint, scopedWorker } from '../helpers/events.js';
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

/** The "Event types" entry of docs/decisions.md. */
function decisionsEntry(): string {
  const doc = readFileSync(new URL('../../docs/decisions.md', import.meta.url), 'utf8');
  const start = doc.indexOf('- **Event types.**');
  expect(start).toBeGreaterThanOrEqual(0);
  const end = doc.indexOf('\n- **', start + 1);
  return doc.slice(start, end);
}

describe('the event types an endpoint filter may name', () => {
  it('docs/decisions.md lists exactly the closed list of the code, and says a filter may name every one of them', () => {
    const entry = decisionsEntry();
    const listed = entry.slice(entry.indexOf('The list')).match(/`([a-z_]+\.[a-z_.]+)`/g)!.map((t) => t.slice(1, -1));
    expect(listed).toEqual([...EVENT_TYPES]);
    expect(entry).not.toMatch(/cannot name/);
  });

  it('POST /event-endpoints takes kyc.created (and every other listed type), and the kyc.created of a new attempt is delivered to it', async () => {
    const api = h.api(h.keyHeaders());
    const everything = await api.POST('/event-endpoints', { body: { url: receiver.url('/every-type'), types: [...EVENT_TYPES] } });
    expect(everything.response.status, JSON.stringify(everything.error)).toBe(201);
    expect(everything.data!.types).toEqual([...EVENT_TYPES]);

    const worker = scopedWorker(h);
    const endpoint = await addEndpoint(h, receiver, { types: ['kyc.created'] });
    const userId = await h.createUser();
    const kyc = await api.POST('/kyc/kyc', { body: { userId, provider: 'manual' } });
    expect(kyc.response.status, JSON.stringify(kyc.error)).toBe(201);
    await worker.drainAll();
    const delivered = receiver.acceptedAt(endpoint.path);
    expect(delivered.map((e) => e.type)).toEqual(['kyc.created']);
    expect(delivered[0]!.body).toMatchObject({ type: 'kyc.created', data: { userId } });
  });
});
