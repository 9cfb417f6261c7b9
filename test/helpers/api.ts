import createClient, { type Client } from 'openapi-fetch';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import type { paths } from '../../clients/typescript/src/schema.js';

const BASE = 'http://bastion.test';
const NO_BODY = new Set([101, 204, 205, 304]);

/**
 * A client of the app typed by its own OpenAPI document (paths, parameters, bodies and
 * answers checked by tsc), over the app's HTTP pipeline through `inject`: what a test reads
 * through it is what a client of the service would read. `headers` are sent on every call
 * (tenant, credential).
 */
export type ApiClient = Client<paths, 'application/json'>;

export function apiClient(inject: (options: InjectOptions) => Promise<LightMyRequestResponse>, headers: Record<string, string> = {}): ApiClient {
  return createClient<paths, 'application/json'>({
    baseUrl: BASE,
    headers,
    fetch: async (request: Request) => {
      const url = new URL(request.url);
      const body = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
      const res = await inject({
        method: request.method as InjectOptions['method'],
        url: url.pathname + url.search,
        headers: Object.fromEntries(request.headers),
        ...(body ? { payload: body } : {}),
      });
      const responseHeaders = new Headers();
      for (const [name, value] of Object.entries(res.headers)) {
        if (value === undefined) continue;
        for (const v of Array.isArray(value) ? value : [value]) responseHeaders.append(name, String(v));
      }
      return new Response(NO_BODY.has(res.statusCode) ? null : res.rawPayload, { status: res.statusCode, headers: responseHeaders });
    },
  });
}
