import { randomUUID } from 'node:crypto';
import type { EntitiesServices } from '../../src/modules/entities/module.js';
import { signBody } from '../../src/providers/business-profile/business-profile-a/protocol.js';
import type { Harness, TestTenant } from '../helpers/harness.js';

export function entitiesServices(h: Harness): EntitiesServices {
  const module = h.container.modules.find((m) => m.name === 'entities');
  if (!module) throw new Error('entities module not registered');
  return module.services as EntitiesServices;
}

/** Calls the sandbox over real HTTP as the tenant's account (its sandbox API key). */
export async function sandboxCall(h: Harness, method: 'GET' | 'POST', path: string, body?: unknown, tenant?: TestTenant) {
  const { apiKey, baseUrl } = await entitiesServices(h).businessProfileConfig.endpoint((tenant ?? h.tenant).tenantId);
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

/** A webhook as the provider would send it, signed with the tenant's secret (or another). */
export async function signedWebhook(h: Harness, business: Record<string, unknown>, options: { tenant?: TestTenant; secret?: string; eventId?: string; type?: string } = {}) {
  const tenantId = (options.tenant ?? h.tenant).tenantId;
  const secret = options.secret ?? (await entitiesServices(h).businessProfileConfig.webhookSecret(tenantId))!;
  const raw = JSON.stringify({ object: 'event', id: options.eventId ?? randomUUID(), type: options.type ?? 'business.updated', created_at: new Date().toISOString(), data: { object: business } });
  return { raw, signature: signBody(raw, secret), url: `/callbacks/business-profile-a/${tenantId}` };
}
