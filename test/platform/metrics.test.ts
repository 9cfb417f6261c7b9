import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { serveMetrics } from '../../src/platform/metrics/metrics.js';
import { createHarness, usingPostgres, type Harness } from '../helpers/harness.js';

/** The value of one sample line (`name{labels} value`), or undefined. */
function sample(text: string, name: string, labels = ''): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels ? `{${labels}}` : ''} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('Prometheus metrics', () => {
  let h: Harness;
  let server: Server;
  let url: string;
  beforeAll(async () => {
    h = await createHarness();
    ({ server, url } = await serveMetrics(h.container.platform.metrics, { host: '127.0.0.1', port: 0 }));
  });
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    await h?.close();
  });
  const scrape = async () => {
    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return response.text();
  };

  it('counts answers by route template (never the URL) and status, and times them', async () => {
    const userId = await h.createUser();
    for (let i = 0; i < 3; i++) expect((await h.inject({ method: 'GET', url: `/users/${userId}`, headers: h.keyHeaders() })).statusCode).toBe(200);
    expect((await h.inject({ method: 'GET', url: '/users/me', headers: { 'x-tenant-id': h.tenant.tenantId, authorization: 'Bearer nope' } })).statusCode).toBe(401);
    expect((await h.inject({ method: 'GET', url: '/no/such/route', headers: h.keyHeaders() })).statusCode).toBe(404);
    const text = await scrape();
    expect(sample(text, 'bastion_http_requests_total', 'method="GET",route="/users/:id",status="200"')).toBe(3);
    expect(sample(text, 'bastion_http_requests_total', 'method="GET",route="/users/me",status="401"')).toBe(1);
    expect(sample(text, 'bastion_http_requests_total', 'method="GET",route="(unmatched)",status="404"')).toBe(1);
    expect(text).not.toContain(userId);
    expect(sample(text, 'bastion_http_request_duration_seconds_count', 'method="GET",route="/users/:id",status_class="2xx"')).toBe(3);
    expect(sample(text, 'bastion_http_request_duration_seconds_bucket', 'le="+Inf",method="GET",route="/users/:id",status_class="2xx"')).toBe(3);
  });

  it('reads the mail backlog and counts deliveries; the password pool, event backlog and value moves in flight are there', async () => {
    const email = `metrics-${Date.now()}@example.com`;
    expect((await h.inject({ method: 'POST', url: '/auth/email', headers: { 'x-tenant-id': h.tenant.tenantId }, payload: { email, password: 'a long passphrase' } })).statusCode).toBe(201);
    const before = await scrape();
    expect(sample(before, 'bastion_mail_backlog')).toBeGreaterThanOrEqual(1);
    while ((await h.container.mail.worker.drainOnce()) > 0);
    const after = await scrape();
    // The outbox is shared with the other test files (their tenants' mail is not this harness's to
    // send): ours left it. On PostgreSQL other files run at the same time, so only the embedded pass compares.
    if (!usingPostgres) expect(sample(after, 'bastion_mail_backlog')).toBeLessThan(sample(before, 'bastion_mail_backlog')!);
    expect(sample(after, 'bastion_mail_deliveries_total', 'outcome="sent"')).toBeGreaterThanOrEqual(1);
    expect(sample(after, 'bastion_password_pool_jobs', 'state="queued"')).toBe(0);
    expect(sample(after, 'bastion_event_backlog', 'stage="delivery"')).toBeGreaterThanOrEqual(0);
    expect(after).toMatch(/^bastion_value_moves_in_flight\{flow="[^"]+"\} \d+$/m);
    if (usingPostgres) expect(sample(after, 'bastion_db_pool_connections', 'state="total"')).toBeGreaterThanOrEqual(1);
  });

  it('serves GET /metrics only: another path or method is 404, and the API port has no /metrics', async () => {
    expect((await fetch(url.replace('/metrics', '/'))).status).toBe(404);
    expect((await fetch(url, { method: 'POST' })).status).toBe(404);
    expect((await h.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(404);
  });

  it('METRICS_PORT is off unless set; a bad one stops the start naming it', () => {
    expect(loadConfig({}).metrics).toEqual({ port: undefined, host: '127.0.0.1' });
    expect(loadConfig({ METRICS_PORT: '9464', METRICS_HOST: '0.0.0.0' }).metrics).toEqual({ port: 9464, host: '0.0.0.0' });
    expect(loadConfig({ METRICS_PORT: 'off' }).metrics.port).toBeUndefined();
    expect(() => loadConfig({ METRICS_PORT: 'nine' })).toThrow(/METRICS_PORT/);
    expect(() => loadConfig({ METRICS_PORT: '70000' })).toThrow(/METRICS_PORT/);
  });

  it('a taken METRICS_PORT fails naming the variable', async () => {
    const port = Number(new URL(url).port);
    await expect(serveMetrics(h.container.platform.metrics, { host: '127.0.0.1', port })).rejects.toThrow(/METRICS_PORT: port \d+ on 127\.0\.0\.1 is in use/);
  });
});

describe('the access log line', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await createHarness();
  });
  afterAll(async () => h?.close());

  it('carries the route template, the principal kind and id, and the error code', async () => {
    const userId = await h.createUser();
    const token = await h.tokenFor(userId);
    await h.inject({ method: 'GET', url: '/users/me', headers: h.bearerHeaders(token) });
    await h.inject({ method: 'GET', url: `/users/${userId}`, headers: h.keyHeaders() });
    await h.inject({ method: 'GET', url: '/users/me', headers: { 'x-tenant-id': h.tenant.tenantId, authorization: 'Bearer nope' } });
    const lines = h.logs.lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === 'request completed');
    expect(lines).toContainEqual(expect.objectContaining({ route: '/users/me', principal: { kind: 'user', id: userId }, res: { statusCode: 200 } }));
    expect(lines).toContainEqual(expect.objectContaining({ route: '/users/:id', principal: { kind: 'apiKey', id: h.tenant.keyId } }));
    expect(lines).toContainEqual(expect.objectContaining({ route: '/users/me', principal: null, res: { statusCode: 401 }, code: 'TOKEN_INVALID' }));
  });
});
