import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { EventsServices } from '../../src/modules/events/module.js';
import type { DeliveryWorkerOptions } from '../../src/modules/events/worker.js';
import type { Harness, TestTenant } from './harness.js';
import type { Receiver } from './receiver.js';

/** The events module's services of a harness. */
export function eventsOf(h: Harness): EventsServices {
  return h.container.modules.find((m) => m.name === 'events')!.services as EventsServices;
}

/**
 * A delivery worker of this harness that handles only the given tenants (suites share one
 * PostgreSQL), with a short request timeout and a fixed jitter unless told otherwise.
 */
export function scopedWorker(h: Harness, options: Partial<DeliveryWorkerOptions> = {}, tenants: TestTenant[] = [h.tenant]) {
  return eventsOf(h).createWorker({ tenantIds: () => tenants.map((t) => t.tenantId), timeoutMs: 2_000, random: () => 0.5, ...options });
}

export interface CreatedEndpoint {
  id: string;
  secret: string;
  path: string;
  url: string;
  types: string[];
  enabled: boolean;
}

/** Adds an endpoint through the API pointing at `receiver` under a fresh path, and registers its secret there. */
export async function addEndpoint(h: Harness, receiver: Receiver, body: Record<string, unknown> = {}, tenant: TestTenant = h.tenant): Promise<CreatedEndpoint> {
  const path = `/hook/${randomUUID()}`;
  const res = await h.inject({ method: 'POST', url: '/event-endpoints', headers: h.keyHeaders(tenant), payload: { url: receiver.url(path), ...body } });
  expect(res.statusCode, res.body).toBe(201);
  const created = res.json() as CreatedEndpoint;
  receiver.secrets.set(path, [created.secret]);
  return { ...created, path };
}

/** Makes `n` user.created events through the API; returns the user ids. */
export async function makeUsers(h: Harness, n: number, tenant: TestTenant = h.tenant): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const res = await h.inject({ method: 'POST', url: '/users', headers: h.keyHeaders(tenant), payload: { email: `ev-${randomUUID()}@example.com` } });
    expect(res.statusCode, res.body).toBe(201);
    ids.push((res.json() as { id: string }).id);
  }
  return ids;
}

/** The tenant's pulled events (GET /events), all pages. */
export async function pullAll(h: Harness, tenant: TestTenant = h.tenant) {
  const all: Array<{ id: string; seq: number; type: string; timestamp: string; data: Record<string, unknown> }> = [];
  let after = '0';
  for (;;) {
    const res = await h.inject({ method: 'GET', url: `/events?after=${after}&limit=100`, headers: h.keyHeaders(tenant) });
    expect(res.statusCode, res.body).toBe(200);
    const page = res.json() as { data: typeof all; next: string; hasMore: boolean };
    all.push(...page.data);
    after = page.next;
    if (!page.hasMore) return all;
  }
}
