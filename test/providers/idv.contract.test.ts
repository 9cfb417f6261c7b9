import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdapterConfig } from '../../src/platform/providers/define.js';
import { ProviderError } from '../../src/platform/providers/errors.js';
import type { IdvEndpoint } from '../../src/providers/idv/http-client.js';
import { idvA } from '../../src/providers/idv/idv-a/index.js';
import { idvB } from '../../src/providers/idv/idv-b/index.js';
import type { IdvProviderName } from '../../src/providers/idv/port.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { idvEndpoint } from '../helpers/kyc.js';

/** A webhook as a provider sent it: path, query, headers and the exact bytes. */
interface Received {
  path: string;
  query: Record<string, string>;
  headers: Record<string, string | string[] | undefined>;
  raw: Buffer;
}

let h: Harness;
let receiver: Server;
let receiverUrl: string;
const received: Received[] = [];
const definitions = { 'idv-a': idvA({ http: { timeoutMs: 5000 } }), 'idv-b': idvB({ http: { timeoutMs: 5000 } }) };

beforeAll(async () => {
  h = await createHarness({ listen: true });
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const url = new URL(request.url ?? '/', 'http://receiver');
      received.push({ path: url.pathname, query: Object.fromEntries(url.searchParams), headers: request.headers, raw: Buffer.concat(chunks) });
      response.writeHead(201, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
  await h.close();
});

/**
 * The idv port's contract, the same for every provider: each adapter, driven against the
 * provider's sandbox over real HTTP, opens a session whose page the person uses; the webhooks
 * the provider then sends verify with the adapter's signature check under the tenant's secret,
 * name the tenant that signed them, and read into the common shape with the record, session
 * and decision. A real provider's endpoint runs the same suite when configured.
 */
function contract(provider: IdvProviderName): void {
  describe(`idv port contract: ${provider} against its sandbox`, () => {
    const definition = definitions[provider];
    const { verify, routes } = definition.webhooks!;
    const flow = provider === 'idv-a' ? ('session' as const) : ('regular' as const);
    let endpoint: IdvEndpoint;
    /** The adapter's config as the providers service builds it from the endpoint. */
    const configOf = (e: IdvEndpoint, tenantId = h.tenant.tenantId): AdapterConfig => ({
      tenantId,
      baseUrl: e.baseUrl,
      settings: { 'client-id': e.clientId },
      secrets: { 'webhook-secret': e.secret },
      sandbox: false,
    });
    const adapterFor = (e: IdvEndpoint, tenantId = h.tenant.tenantId) => definition.adapter(configOf(e, tenantId));
    beforeAll(async () => {
      endpoint = await idvEndpoint(h, h.tenant.tenantId, provider);
    });

    it('opens a session whose page decides, and whose signed webhooks read into the common shape', async () => {
      const kycId = crypto.randomUUID();
      const adapter = adapterFor(endpoint);
      const session = await adapter.createSession({ kycId, callbackBaseUrl: receiverUrl, flow });
      expect(session.url).toBe(`${h.baseUrl}/sandbox/${provider}/s/${session.sessionId}`);
      expect((await fetch(session.url)).status).toBe(200);

      received.length = 0;
      const decided = await fetch(session.url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'decision=approved' });
      expect(decided.status).toBe(200);
      expect(received.length).toBeGreaterThan(0);

      const reads = [];
      for (const webhook of received) {
        const route = routes!.find((r) => r.path === webhook.path);
        expect(route, `${provider} sent to ${webhook.path}, a path its definition does not declare`).toBeDefined();
        const delivery = (raw: string, secret = endpoint.secret) =>
          verify({ tenantId: h.tenant.tenantId, rawBody: raw, headers: webhook.headers }, { port: adapter, config: configOf({ ...endpoint, secret }) });
        const raw = webhook.raw.toString('utf8');
        expect(await delivery(raw)).toBe(true);
        // The same bytes altered, or another secret, do not verify.
        expect(await delivery(raw.replace(kycId, crypto.randomUUID()))).toBe(false);
        expect(await delivery(raw, 'another secret of the right length')).toBe(false);
        const body = JSON.parse(raw) as unknown;
        expect(route!.tenantOf(body, webhook.query)).toBe(h.tenant.tenantId);
        // The event id is the same for the same delivery (a retry), and differs between deliveries.
        expect(definition.webhooks!.id(body, { tenantId: h.tenant.tenantId, rawBody: raw, headers: webhook.headers })).toBeTruthy();
        reads.push(adapter.readWebhook(route!.name, body));
      }
      const ids = received.map((w) => definition.webhooks!.id(JSON.parse(w.raw.toString('utf8')), { tenantId: h.tenant.tenantId, rawBody: w.raw.toString('utf8'), headers: w.headers }));
      expect(new Set(ids).size).toBe(ids.length);
      for (const read of reads) expect(read).toMatchObject({ kycId, sessionId: session.sessionId });
      expect(reads.at(-1)).toMatchObject({ status: 'approved', reason: null });
      // A webhook read for another tenant than the one that signed it does not name a record.
      const last = routes!.find((r) => r.path === received.at(-1)!.path)!;
      const foreign = adapterFor(endpoint, crypto.randomUUID()).readWebhook(last.name, JSON.parse(received.at(-1)!.raw.toString('utf8')));
      if (provider === 'idv-a') expect(foreign).toHaveProperty('malformed');
    });

    it('a wrong secret is refused by the provider (unauthorized); a closed port is unreachable; a delivery without signature is 401 WEBHOOK_SIGNATURE_MISSING', async () => {
      const request = { kycId: crypto.randomUUID(), callbackBaseUrl: receiverUrl, flow };
      const wrong = await adapterFor({ ...endpoint, secret: 'x'.repeat(43) }).createSession(request).catch((e: unknown) => e);
      expect(wrong).toBeInstanceOf(ProviderError);
      expect((wrong as ProviderError).reason).toBe('unauthorized');
      const closed = await adapterFor({ ...endpoint, baseUrl: 'http://127.0.0.1:1' }).createSession(request).catch((e: unknown) => e);
      expect((closed as ProviderError).reason).toBe('unreachable');
      const unsigned = (async () => verify({ tenantId: h.tenant.tenantId, rawBody: '{}', headers: {} }, { port: adapterFor(endpoint), config: configOf(endpoint) }))();
      await expect(unsigned).rejects.toMatchObject({ statusCode: 401, code: 'WEBHOOK_SIGNATURE_MISSING' });
    });
  });
}

contract('idv-a');
contract('idv-b');
