import { sql } from 'drizzle-orm';
import { createHarness, type Harness, type HarnessOptions, type TestTenant } from './harness.js';
import { startOidcProvider, TestBrowser, type TestOidcProvider } from './oidc-provider.js';

export const CLIENT_URL = 'https://app.example/after-login';

export interface IdpHarness {
  h: Harness;
  op: TestOidcProvider;
  browser(): TestBrowser;
  /** Configures the provider for a tenant (the harness tenant by default). */
  configure(tenant?: TestTenant, redirectAllow?: string[]): Promise<void>;
  /** GET /auth/idp: the authorization URL. */
  start(redirectUrl?: string, tenant?: TestTenant): Promise<string>;
  /** The whole browser journey up to Bastion's callback; answers the callback's response. */
  callback(callbackUrl: string, headers?: Record<string, string>): Promise<Response>;
  /** Counts that a failed login must leave unchanged. */
  counts(tenant?: TestTenant): Promise<{ users: number; sessions: number; identities: number }>;
  close(): Promise<void>;
}

export async function createIdpHarness(options: HarnessOptions = {}): Promise<IdpHarness> {
  const h = await createHarness({ ...options, listen: true });
  const op = await startOidcProvider({ redirectUri: `${h.baseUrl}/auth/idp/callback` });
  const configure = async (tenant = h.tenant, redirectAllow = [CLIENT_URL]) => {
    await h.container.idpConfig.set(tenant.tenantId, { issuer: op.issuer, clientId: op.clientId, clientSecret: op.clientSecret, redirectAllow });
  };
  await configure();
  return {
    h,
    op,
    browser: () => new TestBrowser(op.issuer),
    configure,
    async start(redirectUrl = CLIENT_URL, tenant = h.tenant) {
      const res = await fetch(`${h.baseUrl}/auth/idp?redirectUrl=${encodeURIComponent(redirectUrl)}`, { headers: { 'x-tenant-id': tenant.tenantId } });
      if (res.status !== 200) throw new Error(`GET /auth/idp answered ${res.status}: ${await res.text()}`);
      return ((await res.json()) as { authorizationUrl: string }).authorizationUrl;
    },
    callback: (callbackUrl, headers = {}) => fetch(callbackUrl, { redirect: 'manual', headers }),
    async counts(tenant = h.tenant) {
      const db = h.database.db;
      const one = async (table: string) => {
        const result = await db.execute(sql.raw(`select count(*)::int as n from ${table} where tenant_id = '${tenant.tenantId}'`));
        return Number((result as unknown as { rows: Array<{ n: number }> }).rows[0]?.n ?? 0);
      };
      return { users: await one('users'), sessions: await one('sessions'), identities: await one('user_identities') };
    },
    async close() {
      await h.close();
      await op.close();
    },
  };
}

/** The values in the fragment of a redirect's Location. */
export function fragmentOf(response: Response): URLSearchParams {
  const location = response.headers.get('location');
  if (!location) throw new Error(`no redirect (status ${response.status})`);
  return new URLSearchParams(new URL(location).hash.slice(1));
}
