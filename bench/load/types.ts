/** One HTTP request the load generator sends. */
export interface RequestSpec {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface LoadSpec {
  /** The requests to send, taken in turn (each connection/thread from its own starting point). */
  requests: RequestSpec[];
  /**
   * Each request is sent at most once (refresh tokens rotate). Running out wraps around, which
   * answers 401s; the result then says `exhausted` and the figures are not valid.
   */
  once?: boolean;
  connections: number;
  durationSec: number;
}

export interface LoadResult {
  tool: 'wrk' | 'autocannon' | 'paced';
  requests: number;
  durationSec: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  /** Responses outside 2xx/3xx, plus connection errors and timeouts. */
  failures: number;
  exhausted: boolean;
}

export interface LoadBackend {
  readonly name: 'wrk' | 'autocannon';
  run(baseUrl: string, spec: LoadSpec): Promise<LoadResult>;
}
