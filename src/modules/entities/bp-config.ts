import { randomToken, sha256Hex } from '../../platform/crypto/hash.js';
import { ProviderSettingsError, type ProviderConfig, type ProviderSettings } from '../../platform/provider-settings/settings.js';
import type { BusinessProfileEndpoint } from '../../providers/business-profile/port.js';
import { SANDBOX_PREFIX } from '../../sandboxes/business-profile-a/plugin.js';
import type { SandboxAccount } from '../../sandboxes/business-profile-a/service.js';
import { BusinessProfileErrors } from './errors.js';

export const PROVIDER = 'business-profile-a';
/** The provider-settings kind. */
export const BUSINESS_PROFILE_KIND = 'business-profile';

export interface BusinessProfileSettings {
  baseUrl: string;
  apiKey: string;
  webhookSecret: string;
}

/**
 * Per-tenant settings of business-profile-a, kept by the platform's provider settings (kind
 * `business-profile`: secrets `api-key` and `webhook-secret`). A tenant without settings uses
 * the built-in sandbox: an API key and webhook secret are made on first use; the sandbox row
 * keeps the key's SHA-256 as its public setting `api-key-digest`, how the sandbox finds the
 * account of a presented key.
 */
export function createBusinessProfileConfig(deps: {
  providerSettings: ProviderSettings;
  publicBaseUrl: () => string;
  /** Whether the built-in sandbox is served (SANDBOXES): a tenant on it gets 503 PROVIDER_NOT_CONFIGURED otherwise. */
  sandboxes: boolean;
}) {
  const { providerSettings, publicBaseUrl } = deps;
  const webhookUrl = (tenantId: string) => `${publicBaseUrl()}/callbacks/${PROVIDER}/${tenantId}`;
  const sandboxCredentials = () => {
    const apiKey = `sk_sandbox_${randomToken(24)}`;
    return { settings: { 'api-key-digest': sha256Hex(apiKey) }, secrets: { 'api-key': apiKey, 'webhook-secret': randomToken(32) } };
  };
  providerSettings.declare({
    kind: BUSINESS_PROFILE_KIND,
    provider: PROVIDER,
    description: 'business profiles (KYB) at business-profile-a; the built-in sandbox unless configured',
    settings: {},
    secrets: {
      'api-key': { required: true, description: 'the API key (Bearer) of the provider account' },
      'webhook-secret': { required: true, description: 'the secret of the webhook signatures (16 characters or more)' },
    },
    validate: ({ secrets }) => {
      if ((secrets['api-key'] ?? '').length < 8) throw new ProviderSettingsError('the API key must be given');
      if ((secrets['webhook-secret'] ?? '').length < 16) throw new ProviderSettingsError('the webhook secret must hold at least 16 characters');
    },
    sandbox: { generate: sandboxCredentials },
    // Before provider_settings: business_profile_configs, each secret sealed on its own.
    legacyContext: (tenantId, name) => `${PROVIDER}:${name}:${tenantId}`,
  });
  const get = (tenantId: string) => providerSettings.resolve(tenantId, BUSINESS_PROFILE_KIND, PROVIDER);
  const find = (tenantId: string) => providerSettings.find(tenantId, BUSINESS_PROFILE_KIND, PROVIDER);
  const account = (tenantId: string, c: ProviderConfig): SandboxAccount => ({ accountId: tenantId, webhookUrl: webhookUrl(tenantId), webhookSecret: c.secrets['webhook-secret']! });
  const baseUrlOf = (c: ProviderConfig) => c.baseUrl ?? `${publicBaseUrl()}${SANDBOX_PREFIX}`;

  return {
    webhookUrl,

    /** Where to call the provider; a tenant on the sandbox while it is not served is 503 PROVIDER_NOT_CONFIGURED. */
    async endpoint(tenantId: string): Promise<BusinessProfileEndpoint> {
      const c = await get(tenantId);
      if (c.baseUrl === null && !deps.sandboxes) throw BusinessProfileErrors.notConfigured();
      return { baseUrl: baseUrlOf(c), apiKey: c.secrets['api-key']! };
    },

    /** The secret the tenant's webhooks are signed with; undefined for a tenant with no settings. */
    async webhookSecret(tenantId: string): Promise<string | undefined> {
      return (await find(tenantId))?.secrets['webhook-secret'];
    },

    /** The sandbox's credential store: the account of a presented API key. */
    async sandboxAccountByKey(apiKey: string): Promise<SandboxAccount | undefined> {
      const tenantId = await providerSettings.findSandboxTenant(BUSINESS_PROFILE_KIND, PROVIDER, 'api-key-digest', sha256Hex(apiKey));
      if (!tenantId) return undefined;
      const c = await find(tenantId);
      return c && c.baseUrl === null && c.secrets['api-key'] === apiKey ? account(tenantId, c) : undefined;
    },

    async sandboxAccountById(tenantId: string): Promise<SandboxAccount | undefined> {
      const c = await find(tenantId);
      return c && c.baseUrl === null && c.secrets['webhook-secret'] ? account(tenantId, c) : undefined;
    },

    /** Points the tenant at a real provider, or back at the sandbox (null) with a fresh key and secret. */
    async configure(tenantId: string, settings: BusinessProfileSettings | null): Promise<void> {
      if (settings === null) return providerSettings.useSandbox(tenantId, BUSINESS_PROFILE_KIND, PROVIDER);
      await providerSettings.configure(tenantId, BUSINESS_PROFILE_KIND, PROVIDER, {
        baseUrl: settings.baseUrl,
        settings: {},
        secrets: { 'api-key': settings.apiKey, 'webhook-secret': settings.webhookSecret },
      });
    },

    /** What an operator may see: where the tenant points and the webhook URL to register (no secrets). */
    async view(tenantId: string): Promise<{ provider: string; baseUrl: string; sandbox: boolean; webhookUrl: string; apiKeyLast4: string }> {
      const c = await get(tenantId);
      return { provider: PROVIDER, baseUrl: baseUrlOf(c), sandbox: c.baseUrl === null, webhookUrl: webhookUrl(tenantId), apiKeyLast4: (c.secrets['api-key'] ?? '').slice(-4) };
    },
  };
}

export type BusinessProfileConfig = ReturnType<typeof createBusinessProfileConfig>;
