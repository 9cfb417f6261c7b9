import { writeFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { TenantsService } from './service.js';

export const DEMO_TENANT_NAME = 'demo';

/**
 * On a fresh embedded start, creates the `demo` tenant once and writes its id and API key to
 * DATA_DIR/demo-tenant.json (mode 0600). Returns the file's path when it was written now.
 */
export async function ensureDemoTenant(tenants: TenantsService, dataDir: string): Promise<string | undefined> {
  if (await tenants.findTenantByName(DEMO_TENANT_NAME)) return undefined;
  const created = await tenants.createTenant(DEMO_TENANT_NAME);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = join(dataDir, 'demo-tenant.json');
  const body = JSON.stringify({ tenantId: created.tenantId, apiKey: created.apiKey, keyId: created.keyId }, null, 2);
  writeFileSync(file, body + '\n', { mode: 0o600, flag: existsSync(file) ? 'w' : 'wx' });
  return file;
}
