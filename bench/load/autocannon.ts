import autocannon from 'autocannon';
import type { LoadBackend, LoadResult, LoadSpec, RequestSpec } from './types.js';

/** A cursor over the spec's requests: shared by every connection, so `once` holds across them. */
function feeder(spec: LoadSpec): { next(): RequestSpec; wrapped(): boolean } {
  let i = 0;
  let wrapped = false;
  return {
    next() {
      if (i >= spec.requests.length) {
        i = 0;
        if (spec.once) wrapped = true;
      }
      return spec.requests[i++]!;
    },
    wrapped: () => wrapped,
  };
}

/** autocannon, in this process: the fallback when wrk is not available. Steady-rate loads are paced.ts's. */
export const autocannonBackend: LoadBackend = {
  name: 'autocannon',
  async run(baseUrl: string, spec: LoadSpec): Promise<LoadResult> {
    const feed = feeder(spec);
    const single = spec.requests.length === 1 && !spec.once;
    const first = spec.requests[0]!;
    const result = await autocannon({
      url: baseUrl,
      connections: spec.connections,
      duration: spec.durationSec,
      timeout: 10,
      requests: [
        single
          ? { method: first.method, path: first.path, headers: first.headers, body: first.body }
          : {
              setupRequest: (request: autocannon.Request) => {
                const next = feed.next();
                return { ...request, method: next.method, path: next.path, headers: next.headers, body: next.body };
              },
            },
      ],
    });
    const failures = result.non2xx + result.errors + result.timeouts;
    return {
      tool: 'autocannon',
      requests: result.requests.total,
      durationSec: result.duration,
      rps: result.requests.total / result.duration,
      p50Ms: result.latency.p50,
      p99Ms: result.latency.p99,
      failures,
      exhausted: feed.wrapped(),
    };
  },
};
