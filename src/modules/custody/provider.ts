import type { Providers } from '../../platform/providers/service.js';
import type { CustodyAClient } from '../../providers/custody/port.js';

export const CUSTODY_KIND = 'custody';
export const CUSTODY_A = 'custody-a';

/**
 * The tenant's custody port: custody-a as `provider configure --kind custody --provider
 * custody-a` set it, else its sandbox (platform.providers; declared in
 * src/providers/custody/custody-a/index.ts).
 */
export function createCustodyAProvider(providers: Providers) {
  return {
    client: (tenantId: string): Promise<CustodyAClient> => providers.port(tenantId, CUSTODY_KIND, CUSTODY_A),
  };
}

export type CustodyAProvider = ReturnType<typeof createCustodyAProvider>;
