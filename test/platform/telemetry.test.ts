import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tracingWanted } from '../../src/platform/telemetry/settings.js';
import { cliJson } from '../helpers/cli.js';
import { TEST_MASTER_KEY, usingPostgres } from '../helpers/harness.js';
import { POSTGRES_PASS_ONLY } from '../helpers/passes.js';
import { ownPostgresDatabase, type OwnDatabase } from '../helpers/own-database.js';
import { nodeArgsFor } from '../../scripts/built.mjs';
import { servicePort } from '../helpers/ports.js';

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Array<{ key: string; value: { stringValue?: string; intValue?: string | number } }>;
}

/** One loopback server: the OTLP/HTTP receiver (POST /v1/traces, JSON) and an event endpoint (POST /hook). */
async function startCollector(): Promise<{ server: Server; url: string; received: Received[]; spans: () => OtlpSpan[] }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(req.url === '/v1/traces' ? 200 : 204, { 'content-type': 'application/json' }).end(req.url === '/v1/traces' ? '{}' : undefined);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const spans = () =>
    received
      .filter((r) => r.path === '/v1/traces')
      .flatMap((r) => (JSON.parse(r.body) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: OtlpSpan[] }> }> }).resourceSpans)
      .flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received, spans };
}

async function waitFor<T>(check: () => T | undefined | false, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}

const attribute = (span: OtlpSpan, key: string) => span.attributes.find((a) => a.key === key)?.value;

describe('tracing is off unless an OTLP endpoint is named', () => {
  it('reads the standard variables', () => {
    expect(tracingWanted({})).toBe(false);
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(true);
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' })).toBe(false);
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_EXPORTER: 'none' })).toBe(false);
  });
});

// A process: tracing wraps modules as they load. On the PostgreSQL pass (the pg driver's spans).
describe.skipIf(POSTGRES_PASS_ONLY)('OpenTelemetry traces of the service process', () => {
  let collector: Awaited<ReturnType<typeof startCollector>>;
  let child: ChildProcess;
  let output = '';
  let base = '';
  let tenant: { tenantId: string; apiKey: string };
  let database: OwnDatabase | undefined;

  beforeAll(async () => {
    collector = await startCollector();
    // Its own database: its workers serve every tenant of theirs (helpers/own-database.ts).
    database = usingPostgres ? await ownPostgresDatabase(process.env.DATABASE_URL!, 'otel') : undefined;
    const dataDir = mkdtempSync(join(tmpdir(), 'bastion-otel-'));
    const port = servicePort();
    base = `http://127.0.0.1:${port}`;
    const env = {
      PATH: process.env.PATH ?? '',
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_BASE_URL: base,
      EVM_LOCAL_RPC_PORT: '0',
      XRPL_LOCAL_PORT: '0',
      EVENTS_ALLOW_PRIVATE_URLS: 'on',
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_BSP_SCHEDULE_DELAY: '100',
      OTEL_SERVICE_NAME: 'bastion-under-test',
      ...(database ? { DATABASE_URL: database.url, MASTER_KEY: TEST_MASTER_KEY } : {}),
    };
    child = spawn(process.execPath, nodeArgsFor('src/main.ts'), { env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    await waitFor(() => output.includes('Server listening') || output.includes('failed to start'), 180_000);
    expect(output).not.toContain('failed to start');
    tenant = database
      ? await cliJson({ DATABASE_URL: database.url, MASTER_KEY: TEST_MASTER_KEY })('tenant', 'create', '--name', `otel-${Date.now()}`)
      : (JSON.parse(readFileSync(join(dataDir, 'demo-tenant.json'), 'utf8')) as { tenantId: string; apiKey: string });
  }, 240_000);

  afterAll(async () => {
    child?.kill('SIGTERM');
    await new Promise((resolve) => (child?.exitCode !== null ? resolve(null) : child.on('exit', resolve)));
    collector?.server.closeAllConnections();
    collector?.server.close();
    await database?.drop();
  });

  it("honours the caller's traceparent: the request's span is its child, named by the route template", async () => {
    const traceId = randomBytes(16).toString('hex');
    const parentId = randomBytes(8).toString('hex');
    const response = await fetch(`${base}/users?limit=1`, { headers: { 'x-tenant-id': tenant.tenantId, 'x-api-key': tenant.apiKey, traceparent: `00-${traceId}-${parentId}-01` } });
    expect(response.status).toBe(200);
    const spans = await waitFor(() => {
      const mine = collector.spans().filter((s) => s.traceId === traceId);
      return mine.some((s) => s.parentSpanId === parentId) && (!usingPostgres || mine.some((s) => attribute(s, 'db.system')?.stringValue === 'postgresql' || attribute(s, 'db.system.name')?.stringValue === 'postgresql')) ? mine : undefined;
    });
    const root = spans.find((s) => s.parentSpanId === parentId)!;
    expect(attribute(root, 'http.route')?.stringValue ?? root.name).toContain('/users');
    const resource = JSON.parse(collector.received.find((r) => r.path === '/v1/traces')!.body) as { resourceSpans: Array<{ resource: { attributes: Array<{ key: string; value: { stringValue?: string } }> } }> };
    expect(resource.resourceSpans[0]!.resource.attributes).toContainEqual({ key: 'service.name', value: { stringValue: 'bastion-under-test' } });
  });

  it('an event delivery carries a traceparent, and its outgoing call is a span', async () => {
    const endpoint = await fetch(`${base}/event-endpoints`, {
      method: 'POST',
      headers: { 'x-tenant-id': tenant.tenantId, 'x-api-key': tenant.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ url: `${collector.url}/hook`, types: ['user.created'] }),
    });
    expect(endpoint.status).toBe(201);
    const created = await fetch(`${base}/users`, {
      method: 'POST',
      headers: { 'x-tenant-id': tenant.tenantId, 'x-api-key': tenant.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ email: `otel-${Date.now()}@example.com` }),
    });
    expect(created.status).toBe(201);
    const delivery = await waitFor(() => collector.received.find((r) => r.path === '/hook'));
    const traceparent = String(delivery.headers.traceparent ?? '');
    expect(traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/);
    const [, traceId, spanId] = traceparent.split('-');
    await waitFor(() => collector.spans().find((s) => s.traceId === traceId && s.spanId === spanId));
  });
});
