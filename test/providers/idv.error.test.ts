import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProviderError } from '../../src/platform/providers/errors.js';
import type { IdvEndpoint } from '../../src/providers/idv/http-client.js';
import { createIdvAAdapter } from '../../src/providers/idv/idv-a/http.js';
import { signBody } from '../../src/providers/idv/signature.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { idvEndpoint } from '../helpers/kyc.js';

let h: Harness;
let endpoint: IdvEndpoint;
let fake: Server;
let fakeUrl: string;
let fakeAnswer: { status: number; body: string } = { status: 200, body: '{}' };
const adapter = { 'idv-a': { createSession: (e: IdvEndpoint, request: ReturnType<typeof sessionRequest>) => createIdvAAdapter(e, h.tenant.tenantId, { timeoutMs: 2000 }).createSession(request) } };
const DAY = 24 * 60 * 60 * 1000;

beforeAll(async () => {
  h = await createHarness({ listen: true });
  endpoint = await idvEndpoint(h, h.tenant.tenantId, 'idv-a');
  // A misbehaving provider on loopback, answering whatever the test sets.
  fake = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(fakeAnswer.status, { 'content-type': 'application/json' }).end(fakeAnswer.body));
  });
  await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
  fakeUrl = `http://127.0.0.1:${(fake.address() as { port: number }).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => fake.close(() => resolve()));
  await h.close();
});

const sessionRequest = () => ({ kycId: crypto.randomUUID(), callbackBaseUrl: `${h.baseUrl}/x`, flow: 'session' as const });

async function rejection(promise: Promise<unknown>): Promise<ProviderError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
}

describe('HTTP adapter errors', () => {
  it('an HTTP error is its reason (5xx unreachable, 4xx refused, 404 too); a non-JSON answer or an answer without session is malformed', async () => {
    const fakeEndpoint = { ...endpoint, baseUrl: fakeUrl };
    for (const [answer, reason] of [
      [{ status: 500, body: '{"error":"boom"}' }, 'unreachable'],
      [{ status: 422, body: '{"error":"no"}' }, 'refused'],
      [{ status: 404, body: '{}' }, 'refused'],
      [{ status: 403, body: '{}' }, 'unauthorized'],
      [{ status: 200, body: '<html>' }, 'malformed_answer'],
      [{ status: 200, body: '{"verification":{"id":"x"}}' }, 'malformed_answer'],
      [{ status: 200, body: '{"verification":{"id":"x","url":"javascript:alert(1)"}}' }, 'malformed_answer'],
    ] as const) {
      fakeAnswer = answer;
      expect((await rejection(adapter['idv-a'].createSession(fakeEndpoint, sessionRequest()))).reason).toBe(reason);
    }
  });

  it('a closed port is "unreachable"', async () => {
    const closed = { ...endpoint, baseUrl: 'http://127.0.0.1:9/api' };
    expect((await rejection(adapter['idv-a'].createSession(closed, sessionRequest()))).reason).toBe('unreachable');
  });
});

describe('sandbox errors', () => {
  it('400 when a session lacks its webhooks (signed correctly)', async () => {
    const raw = JSON.stringify({ verification: { vendorData: 'v' } });
    const res = await fetch(`${h.baseUrl}/sandbox/idv-a/v1/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-auth-client': endpoint.clientId, 'x-hmac-signature': signBody(raw, endpoint.secret) },
      body: raw,
    });
    expect(res.status).toBe(400);
  });

  it('404 for an unknown session page; 410 once the session expired; 400 for an unknown choice or a second decision', async () => {
    expect((await fetch(`${h.baseUrl}/sandbox/idv-a/s/${crypto.randomUUID()}`)).status).toBe(404);
    expect((await fetch(`${h.baseUrl}/sandbox/idv-b/s/${crypto.randomUUID()}`)).status).toBe(404);

    const session = await adapter['idv-a'].createSession(endpoint, sessionRequest());
    const post = (decision: string) =>
      fetch(session.url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `decision=${decision}` });
    expect((await post('maybe')).status).toBe(400);
    expect((await post('approved')).status).toBe(200);
    expect((await post('declined')).status).toBe(400);

    const later = await adapter['idv-a'].createSession(endpoint, sessionRequest());
    h.clock.advance(7 * DAY);
    expect((await fetch(later.url)).status).toBe(410);
  });
});
