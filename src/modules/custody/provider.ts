import type { Platform } from '../../platform/module/module.js';
import { createCustodyAClient } from '../../providers/custody/custody-a/http.js';
import type { CustodyASandbox } from '../../sandboxes/custody-a/plugin.js';
import { isEd25519PrivateKey } from '../../providers/custody/custody-a/signing.js';
import type { CustodyAClient } from '../../providers/custody/port.js';
import { ProviderSettingsError } from '../../platform/provider-settings/settings.js';
import { CustodyErrors } from './errors.js';

export const CUSTODY_KIND = 'custody';
export const CUSTODY_A = 'custody-a';

/** Where custody-a's webhooks for a tenant are to be sent. */
export const webhookPath = (tenantId: string) => `/custody-a/webhooks/${tenantId}`;

/**
 * custody-a for a tenant: the real provider once `provider configure --kind custody
 * --provider custody-a` set its base URL, API key and signing key; else the built-in
 * sandbox (when sandboxes are served), whose account for the tenant is opened on first use.
 */
export function createCustodyAProvider(platform: Platform, sandbox: CustodyASandbox, fetchImpl?: typeof fetch) {
  platform.providerSettings.declare({
    kind: CUSTODY_KIND,
    provider: CUSTODY_A,
    description: 'custody-a: vaults of wallets, transfers and travel-rule transfers (Ed25519-signed requests, P-256-signed webhooks)',
    settings: {
      apiKey: { required: true, description: 'the API access key id (Api-Access-Key)' },
      webhookPublicKey: { required: false, description: "the provider's P-256 webhook key (SPKI PEM); fetched from /v2/webhooks/public-key when absent" },
    },
    secrets: { signingKey: { required: true, description: 'the Ed25519 private key (PKCS#8 PEM) requests are signed with' } },
    validate: ({ settings }) => {
      if (settings.webhookPublicKey && !settings.webhookPublicKey.includes('BEGIN PUBLIC KEY')) throw new ProviderSettingsError('webhookPublicKey must be an SPKI PEM');
    },
  });

  const webhookUrl = (tenantId: string) => `${platform.publicBaseUrl()}${webhookPath(tenantId)}`;

  async function resolve(tenantId: string): Promise<{ client: CustodyAClient; webhookKey?: string }> {
    const config = await platform.providerSettings.get(tenantId, CUSTODY_KIND, CUSTODY_A);
    const deps = { clock: platform.clock, ...(fetchImpl ? { fetch: fetchImpl } : {}) };
    if (config.baseUrl === null) {
      if (!platform.config.sandboxes) throw CustodyErrors.notConfigured();
      const credentials = await sandbox.credentialsFor(tenantId, webhookUrl(tenantId));
      return { client: createCustodyAClient({ baseUrl: sandbox.baseUrl(), ...credentials }, deps) };
    }
    const signingKey = config.secrets.signingKey;
    if (!signingKey || !isEd25519PrivateKey(signingKey) || !config.settings.apiKey) throw CustodyErrors.notConfigured();
    return {
      client: createCustodyAClient({ baseUrl: config.baseUrl, apiKey: config.settings.apiKey, signingKey }, deps),
      ...(config.settings.webhookPublicKey ? { webhookKey: config.settings.webhookPublicKey } : {}),
    };
  }

  return {
    client: async (tenantId: string) => (await resolve(tenantId)).client,
    /** The key the tenant's webhooks must verify with. */
    async webhookKey(tenantId: string): Promise<string> {
      const { client, webhookKey } = await resolve(tenantId);
      return webhookKey ?? client.webhookPublicKey();
    },
  };
}

export type CustodyAProvider = ReturnType<typeof createCustodyAProvider>;
