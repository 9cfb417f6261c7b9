import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIdvAdapters } from '../../src/providers/idv/adapters.js';
import { IdvProviderError, type IdvEndpoint, type IdvProviderName } from '../../src/providers/idv/port.js';
import { createHarness, type Harness } from '../helpers/harness.js';

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
const adapters = createIdvAdapters({ timeoutMs: 5000 });

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
    const adapter = adapters[provider];
    const flow = provider === 'idv-a' ? ('session' as const) : ('regular' as const);
    let endpoint: IdvEndpoint;
    beforeAll(async () => {
      endpoint = await h.container.idvConfig.endpoint(h.tenant.tenantId, provider);
    });

    it('opens a session whose page decides, and whose signed webhooks read into the common shape', async () => {
      const kycId = crypto.randomUUID();
      const session = await adapter.createSession(endpoint, { tenantId: h.tenant.tenantId, kycId, callbackBaseUrl: receiverUrl, flow });
      expect(session.url).toBe(`${h.baseUrl}/sandbox/${provider}/s/${session.sessionId}`);
      expect((await fetch(session.url)).status).toBe(200);

      received.length = 0;
      const decided = await fetch(session.url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'decision=approved' });
      expect(decided.status).toBe(200);
      expect(received.length).toBeGreaterThan(0);

      const reads = received.map((webhook) => {
        const route = adapter.webhooks.find((r) => r.path === webhook.path);
        expect(route, `${provider} sent to ${webhook.path}, a path its adapter does not declare`).toBeDefined();
        const signature = webhook.headers[adapter.signatureHeader];
        expect(typeof signature).toBe('string');
        expect(adapter.verifyWebhook(webhook.raw, signature as string, endpoint.secret)).toBe(true);
        // The same bytes altered, or another secret, do not verify.
        const altered = Buffer.from(webhook.raw.toString('utf8').replace(kycId, crypto.randomUUID()));
        expect(adapter.verifyWebhook(altered, signature as string, endpoint.secret)).toBe(false);
        expect(adapter.verifyWebhook(webhook.raw, signature as string, 'another secret of the right length')).toBe(false);
        const body = JSON.parse(webhook.raw.toString('utf8')) as unknown;
        expect(route!.tenantOf(body, webhook.query)).toBe(h.tenant.tenantId);
        return route!.read(body, h.tenant.tenantId);
      });
      for (const read of reads) expect(read).toMatchObject({ kycId, sessionId: session.sessionId });
      expect(reads.at(-1)).toMatchObject({ status: 'approved', reason: null });
      // A webhook read for another tenant than the one that signed it does not name a record.
      const foreign = adapter.webhooks.find((r) => r.path === received.at(-1)!.path)!.read(JSON.parse(received.at(-1)!.raw.toString('utf8')), crypto.randomUUID());
      if (provider === 'idv-a') expect(foreign).toHaveProperty('malformed');
    });

    it('a wrong secret is refused by the provider ("rejected"); a closed port is "unreachable"', async () => {
      const request = { tenantId: h.tenant.tenantId, kycId: crypto.randomUUID(), callbackBaseUrl: receiverUrl, flow };
      const wrong = await adapter.createSession({ ...endpoint, secret: 'x'.repeat(43) }, request).catch((e: unknown) => e);
      expect(wrong).toBeInstanceOf(IdvProviderError);
      expect((wrong as IdvProviderError).kind).toBe('rejected');
      const closed = await adapter.createSession({ ...endpoint, baseUrl: 'http://127.0.0.1:1' }, request).catch((e: unknown) => e);
      expect((closed as IdvProviderError).kind).toBe('unreachable');
    });
  });
}

contract('idv-a');
contract('idv-b');
