import { idvDefinition, type IdvSandboxAccess } from '../definition.js';
import type { IdvHttpOptions } from '../http-client.js';
import { createIdvBAdapter, IDV_B_WEBHOOK_ROUTES } from './http.js';

/** idv-b: wallet-style identity verification (docs/providers.md); a result's `eventId` is the same on every retry. */
export function idvB(deps: { http?: IdvHttpOptions; sandbox?: IdvSandboxAccess } = {}) {
  return idvDefinition({
    name: 'idv-b',
    description: 'identity verification (idv-b, wallet style); the built-in sandbox unless configured',
    adapter: createIdvBAdapter,
    routes: IDV_B_WEBHOOK_ROUTES,
    id: (payload) => String((payload as { eventId: string }).eventId),
    ...deps,
  });
}
