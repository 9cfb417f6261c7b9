import { expect } from 'vitest';
import type { IdvEndpoint } from '../../src/providers/idv/http-client.js';
import type { IdvProviderName } from '../../src/providers/idv/port.js';
import { signBody } from '../../src/providers/idv/signature.js';
import type { Harness, TestTenant } from './harness.js';
import { readKyc } from './read.js';

/** The tenant's stored idv webhook secret (undefined when it has no settings for the provider). */
export async function idvSecret(h: Harness, tenantId: string, provider: 'idv-a' | 'idv-b' = 'idv-a'): Promise<string | undefined> {
  return (await h.container.platform.providerSettings.find(tenantId, 'idv', provider))?.secrets['webhook-secret'];
}

/** Where and as whom the tenant's adapter calls the provider (the sandbox's credentials made on first use, as a session start makes them). */
export async function idvEndpoint(h: Harness, tenantId: string, provider: IdvProviderName): Promise<IdvEndpoint> {
  await h.container.platform.providers.port(tenantId, 'idv', provider);
  const stored = await h.container.platform.providerSettings.get(tenantId, 'idv', provider);
  return { provider, baseUrl: stored.baseUrl ?? h.container.sandboxes.idv.baseUrl(provider), clientId: stored.settings['client-id']!, secret: stored.secrets['webhook-secret']! };
}

/** Points a tenant at a real idv provider (as `provider configure --kind idv`), or back at the sandbox (null). */
export async function configureIdv(
  h: Harness,
  tenantId: string,
  provider: 'idv-a' | 'idv-b',
  config: { baseUrl: string; clientId: string; webhookSecret: string } | null,
): Promise<void> {
  const settings = h.container.platform.providerSettings;
  if (config === null) return settings.useSandbox(tenantId, 'idv', provider);
  await settings.configure(tenantId, 'idv', provider, { baseUrl: config.baseUrl, settings: { 'client-id': config.clientId }, secrets: { 'webhook-secret': config.webhookSecret } });
}

/** A JSON call over real HTTP to the listening test server. */
export async function http(
  h: Harness,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: unknown,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- test bodies are read field by field
): Promise<{ status: number; json: any; text: string }> {
  const res = await fetch(h.baseUrl + path, {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text };
}

/** Opens a sandbox session page and submits the person's choice, as a browser would. */
export async function decideInSandbox(sessionUrl: string, form: Record<string, string>): Promise<{ status: number; html: string }> {
  const page = await fetch(sessionUrl);
  const html = await page.text();
  expect(page.status).toBe(200);
  const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
  expect(action).toBeTruthy();
  const res = await fetch(new URL(action!.replace(/&amp;/g, '&'), sessionUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
  return { status: res.status, html: await res.text() };
}

/** Starts an idv-a session for a user through the API; answers kycId and sessionUrl. */
export async function startSession(h: Harness, userId: string, tenant?: TestTenant): Promise<{ kycId: string; sessionUrl: string }> {
  const token = await h.tokenFor(userId, tenant);
  const { data, error, response } = await h.api(h.bearerHeaders(token, tenant)).POST('/kyc/idv-a/session', { body: {} });
  expect(response.status, JSON.stringify(error)).toBe(201);
  return { ...data!, sessionUrl: data!.sessionUrl! };
}

/** The provider session id of a record (what idv-a webhooks name as verification.id). */
export async function sessionIdOf(h: Harness, kycId: string, tenant?: TestTenant): Promise<string> {
  const sessionUrl: string = (await readKyc(h, kycId, tenant ?? h.tenant)).sessionUrl!;
  return sessionUrl.split('/').pop()!;
}

/** Sends a webhook signed with the tenant's secret (or the given one) by inject (the signature covers the exact bytes, which may be malformed on purpose). */
export async function sendWebhook(
  h: Harness,
  url: string,
  body: unknown,
  options: { tenant?: TestTenant; secret?: string; provider?: 'idv-a' | 'idv-b'; signature?: string | null; raw?: string } = {},
) {
  const raw = options.raw ?? JSON.stringify(body);
  const secret =
    options.secret ?? (await idvSecret(h, (options.tenant ?? h.tenant).tenantId, options.provider ?? 'idv-a'));
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (options.signature !== null) headers['x-hmac-signature'] = options.signature ?? signBody(raw, secret ?? 'no-secret');
  return h.inject({ method: 'POST', url, headers, payload: raw });
}

export function decisionBody(tenantId: string, kycId: string, sessionId: string, status: string, extra: Record<string, unknown> = {}) {
  return {
    status: 'success',
    verification: {
      id: sessionId,
      code: 9001,
      status,
      reason: status === 'approved' ? null : 'test reason',
      vendorData: `${tenantId}:${kycId}`,
      decisionTime: new Date().toISOString(),
      person: { firstName: 'Ada', lastName: 'Lovelace', dateOfBirth: '1815-12-10' },
      document: { country: 'GB', type: 'PASSPORT' },
      ...extra,
    },
  };
}

export function eventBody(tenantId: string, kycId: string, sessionId: string, action: 'started' | 'submitted') {
  return { id: sessionId, attemptId: crypto.randomUUID(), feature: 'selfid', code: action === 'started' ? 7001 : 7002, action, vendorData: `${tenantId}:${kycId}` };
}
