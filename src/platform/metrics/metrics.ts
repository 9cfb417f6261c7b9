import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The service's Prometheus metrics (prom-client), one registry per service instance. The
 * platform records HTTP requests; modules add what they own (backlogs, pools, value moves in
 * flight) with `gauge` (read at scrape time) and `counter`. Served by `serveMetrics` on its own
 * listener (METRICS_PORT), never on the API's port. Names: docs/operations.md, "Metrics".
 */
export interface Metrics {
  readonly registry: Registry;
  /** One answered request: its method, route template ("(unmatched)" for none), status and time. */
  request(method: string, route: string, status: number, seconds: number): void;
  /**
   * A gauge whose values are read at each scrape. A read that fails (the database is away)
   * leaves the gauge out of that scrape instead of failing it.
   */
  gauge(name: string, help: string, read: () => GaugeValue | Promise<GaugeValue>, labelNames?: string[]): void;
  /** A counter (`_total` is part of the name given). */
  counter<L extends string>(name: string, help: string, labelNames?: L[]): Counter<L>;
  /** Node's process metrics (CPU, memory, event-loop lag, GC, handles), for a served service. */
  collectProcessMetrics(): void;
}

/** One value, or one per label set. */
export type GaugeValue = number | Array<{ labels: Record<string, string>; value: number }>;

const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export function createMetrics(): Metrics {
  const registry = new Registry();
  const requests = new Counter({
    name: 'bastion_http_requests_total',
    help: 'HTTP requests answered, by method, route template and status (429: rate limited)',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'bastion_http_request_duration_seconds',
    help: 'Time from the request to its answer, by method, route template and status class',
    labelNames: ['method', 'route', 'status_class'] as const,
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
  let processMetrics = false;
  return {
    registry,
    request(method, route, status, seconds) {
      requests.inc({ method, route, status: String(status) });
      duration.observe({ method, route, status_class: `${Math.floor(status / 100)}xx` }, seconds);
    },
    gauge(name, help, read, labelNames = []) {
      new Gauge({
        name,
        help,
        labelNames,
        registers: [registry],
        async collect() {
          this.reset();
          let values: GaugeValue;
          try {
            values = await read();
          } catch {
            return;
          }
          if (typeof values === 'number') this.set(values);
          else for (const { labels, value } of values) this.set(labels, value);
        },
      });
    },
    counter(name, help, labelNames = []) {
      return new Counter({ name, help, labelNames, registers: [registry] });
    },
    collectProcessMetrics() {
      if (processMetrics) return;
      processMetrics = true;
      collectDefaultMetrics({ register: registry, prefix: 'bastion_' });
    },
  };
}

/**
 * GET /metrics on its own listener (METRICS_PORT on METRICS_HOST): the Prometheus text format.
 * Any other path is 404. Resolves with the listening server and its address.
 */
export async function serveMetrics(metrics: Metrics, options: { host: string; port: number }): Promise<{ server: Server; url: string }> {
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (request.method !== 'GET' || path !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found: GET /metrics\n');
      return;
    }
    metrics.registry
      .metrics()
      .then((text) => response.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text))
      .catch((error: unknown) => response.writeHead(500, { 'content-type': 'text/plain' }).end(`metrics failed: ${(error as Error).message}\n`));
  });
  server.keepAliveTimeout = 5_000;
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException) => {
      const why = error.code === 'EADDRINUSE' ? 'is in use' : `cannot be opened (${error.code ?? error.message})`;
      reject(new Error(`METRICS_PORT: port ${options.port} on ${options.host} ${why}; set METRICS_PORT to a free port, 0 for a random one, or off`, { cause: error }));
    };
    server.once('error', failed);
    server.listen(options.port, options.host, () => {
      server.off('error', failed);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return { server, url: `http://${host}:${address.port}/metrics` };
}
