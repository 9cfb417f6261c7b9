import { randomUUID } from 'node:crypto';
import type { EntitiesServices } from '../../src/modules/entities/module.js';
import { signBody } from '../../src/providers/business-profile/business-profile-a/protocol.js';
import type { Harness, TestTenant } from '../helpers/harness.js';

export function entitiesServices(h: Harness): EntitiesServices {
  const module = h.container.modules.find((m) => m.name === 'entities');
  if (!module) throw new Error('entities module not registered');
  return module.services as EntitiesServices;
}

/** The tenant's business-profile-a settings (made on first use for the sandbox): where, the API key, the webhook secret. */
export async function businessProfileSettings(h: Harness, tenantId: string): Promise<{ baseUrl: string; apiKey: string; webhookSecret: string }> {
  const stored = await h.container.platform.providerSettings.resolve(tenantId, 'business-profile', 'business-profile-a');
  return { baseUrl: stored.baseUrl ?? h.container.sandboxes.businessProfileA.baseUrl(), apiKey: stored.secrets['api-key']!, webhookSecret: stored.secrets['webhook-secret']! };
}

/** Points the tenant at a provider (as `business-profile configure` does), or back at the sandbox (null). */
export async function configureBusinessProfile(h: Harness, tenantId: string, input: { baseUrl: string; apiKey: string; webhookSecret: string } | null): Promise<void> {
  const settings = h.container.platform.providerSettings;
  if (input === null) return settings.useSandbox(tenantId, 'business-profile', 'business-profile-a');
  await settings.configure(tenantId, 'business-profile', 'business-profile-a', { baseUrl: input.baseUrl, settings: {}, secrets: { 'api-key': input.apiKey, 'webhook-secret': input.webhookSecret } });
}

/** Calls the sandbox over real HTTP as the tenant's account (its sandbox API key). */
export async function sandboxCall(h: Harness, method: 'GET' | 'POST', path: string, body?: unknown, tenant?: TestTenant) {
  const { apiKey, baseUrl } = await businessProfileSettings(h, (tenant ?? h.tenant).tenantId);
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
  const secret = options.secret ?? (await businessProfileSettings(h, tenantId)).webhookSecret;
  const raw = JSON.stringify({ object: 'event', id: options.eventId ?? randomUUID(), type: options.type ?? 'business.updated', created_at: new Date().toISOString(), data: { object: business } });
  return { raw, signature: signBody(raw, secret), url: `/callbacks/business-profile-a/${tenantId}` };
}
