import { randomToken } from '../../platform/crypto/hash.js';
import { ProviderSettingsError, type ProviderConfig, type ProviderSettings } from '../../platform/provider-settings/settings.js';
import { IDV_PROVIDERS, type IdvEndpoint, type IdvProviderConfig, type IdvProviderName } from '../../providers/idv/port.js';
import { KycErrors } from './errors.js';

/** The provider-settings kind of the identity-verification providers. */
export const IDV_KIND = 'idv';

/** Where the built-in sandbox of a provider answers, under PUBLIC_BASE_URL. */
export function sandboxBaseUrl(publicBaseUrl: string, provider: IdvProviderName): string {
  return `${publicBaseUrl}/sandbox/${provider}`;
}

/**
 * Per-tenant provider settings, kept by the platform's provider settings (kind `idv`, one
 * provider each: setting `client-id`, secret `webhook-secret`). A tenant without settings uses
 * the built-in sandbox, with its tenant id as client id and a webhook secret made on first use.
 */
export function createIdvConfigService(deps: {
  providerSettings: ProviderSettings;
  publicBaseUrl: () => string;
  /** false (IDV_SANDBOX=off): a tenant without a configured provider cannot start a session. */
  sandboxEnabled: boolean;
}) {
  const { providerSettings, publicBaseUrl, sandboxEnabled } = deps;
  for (const provider of IDV_PROVIDERS) {
    providerSettings.declare({
      kind: IDV_KIND,
      provider,
      description: `identity verification (${provider}); the built-in sandbox unless configured`,
      settings: { 'client-id': { required: true, description: 'the id the provider knows the tenant by (x-auth-client)' } },
      secrets: { 'webhook-secret': { required: true, description: 'the shared secret of the HMAC signatures (16 characters or more)' } },
      validate: ({ secrets }) => {
        if ((secrets['webhook-secret'] ?? '').length < 16) throw new ProviderSettingsError('the webhook secret must hold at least 16 characters');
      },
      sandbox: { generate: (tenantId) => ({ settings: { 'client-id': tenantId }, secrets: { 'webhook-secret': randomToken(32) } }) },
      // Before provider_settings: idv_provider_configs, sealed per tenant and provider.
      legacyContext: (tenantId) => `idv:${tenantId}:${provider}`,
    });
  }

  const secretOf = (c: ProviderConfig | undefined) => (c && c.secrets['webhook-secret'] ? c.secrets['webhook-secret'] : undefined);

  return {
    /** Where and as whom to call the provider for this tenant (the sandbox unless configured). */
    async endpoint(tenantId: string, provider: IdvProviderName): Promise<IdvEndpoint> {
      const config = sandboxEnabled ? await providerSettings.resolve(tenantId, IDV_KIND, provider) : await providerSettings.find(tenantId, IDV_KIND, provider);
      const secret = secretOf(config);
      if (!config || !secret || (config.baseUrl === null && !sandboxEnabled)) throw KycErrors.providerNotConfigured(provider);
      return {
        provider,
        baseUrl: config.baseUrl ?? sandboxBaseUrl(publicBaseUrl(), provider),
        clientId: config.settings['client-id'] ?? tenantId,
        secret,
      };
    },

    /** The secret webhooks of this tenant are signed with; undefined for an unknown tenant. */
    async webhookSecret(tenantId: string, provider: IdvProviderName): Promise<string | undefined> {
      return secretOf(await providerSettings.find(tenantId, IDV_KIND, provider));
    },

    /** For the built-in sandbox: the secret of a client (tenant) that uses the sandbox, else undefined. */
    async sandboxSecret(provider: IdvProviderName, clientId: string): Promise<string | undefined> {
      if (!sandboxEnabled) return undefined;
      const config = await providerSettings.find(clientId, IDV_KIND, provider);
      return config && config.baseUrl === null ? secretOf(config) : undefined;
    },

    /** Points a tenant at a real provider, or back at the sandbox (null) with a fresh secret. */
    async configure(tenantId: string, provider: IdvProviderName, config: IdvProviderConfig | null): Promise<void> {
      if (config === null) return providerSettings.useSandbox(tenantId, IDV_KIND, provider);
      await providerSettings.configure(tenantId, IDV_KIND, provider, {
        baseUrl: config.baseUrl,
        settings: { 'client-id': config.clientId },
        secrets: { 'webhook-secret': config.webhookSecret },
      });
    },
  };
}

export type IdvConfigService = ReturnType<typeof createIdvConfigService>;
