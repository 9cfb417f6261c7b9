import { createHash } from 'node:crypto';
import { idvDefinition, type IdvSandboxAccess } from '../definition.js';
import type { IdvHttpOptions } from '../http-client.js';
import { createIdvAAdapter, IDV_A_WEBHOOK_ROUTES } from './http.js';

/**
 * idv-a: session-style identity verification (docs/providers.md). Its webhooks carry no event
 * id of their own (`id` is the session's, the same for every event of it), so a delivery is
 * known by the SHA-256 of its exact bytes: a retry is the same bytes.
 */
export function idvA(deps: { http?: IdvHttpOptions; sandbox?: IdvSandboxAccess } = {}) {
  return idvDefinition({
    name: 'idv-a',
    description: 'identity verification (idv-a, session style); the built-in sandbox unless configured',
    adapter: createIdvAAdapter,
    routes: IDV_A_WEBHOOK_ROUTES,
    id: (_payload, request) => `sha256:${createHash('sha256').update(request.rawBody, 'utf8').digest('hex')}`,
    ...deps,
  });
}
