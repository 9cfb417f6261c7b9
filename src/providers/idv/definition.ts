import { randomToken } from '../../platform/crypto/hash.js';
import { ProviderSettingsError } from '../../platform/provider-settings/settings.js';
import { defineProvider, type AdapterConfig, type InboundWebhook, type WebhookRoute } from '../../platform/providers/define.js';
import { endpointOf, IDV_SECRETS, IDV_SETTINGS, verifyIdvWebhook, type IdvEndpoint, type IdvHttpOptions } from './http-client.js';
import type { IdvPort, IdvProviderName } from './port.js';

/** What a definition needs of the built-in sandbox: where it answers for this provider. */
export interface IdvSandboxAccess {
  baseUrl(provider: IdvProviderName): string;
}

/**
 * The part both identity-verification providers share: the same settings (`client-id`,
 * secret `webhook-secret`), the same HMAC webhook check, sandbox credentials made on first use
 * (the tenant id as client id, a fresh secret), and the module's codes for the reasons.
 */
export function idvDefinition(input: {
  name: IdvProviderName;
  description: string;
  adapter: (endpoint: IdvEndpoint, tenantId: string, options: IdvHttpOptions) => IdvPort;
  routes: readonly WebhookRoute[];
  id: (payload: unknown, request: InboundWebhook) => string;
  http?: IdvHttpOptions;
  sandbox?: IdvSandboxAccess;
}) {
  const { name, sandbox } = input;
  return defineProvider({
    kind: 'idv',
    name,
    description: input.description,
    settings: IDV_SETTINGS,
    secrets: IDV_SECRETS,
    validate: ({ secrets }) => {
      if ((secrets['webhook-secret'] ?? '').length < 16) throw new ProviderSettingsError('the webhook secret must hold at least 16 characters');
    },
    adapter: (config: AdapterConfig) => input.adapter(endpointOf(name, config), config.tenantId, input.http ?? {}),
    webhooks: {
      verify: (request, { config }) => verifyIdvWebhook(request, config),
      id: input.id,
      routes: input.routes,
    },
    ...(sandbox
      ? {
          sandbox: {
            config: async (_tenantId: string, stored: { settings: Record<string, string>; secrets: Record<string, string> }) => ({
              baseUrl: sandbox.baseUrl(name),
              settings: stored.settings,
              secrets: stored.secrets,
            }),
            generate: (tenantId: string) => ({ settings: { 'client-id': tenantId }, secrets: { 'webhook-secret': randomToken(32) } }),
          },
        }
      : {}),
    codes: { unreachable: 'KYC_PROVIDER_UNAVAILABLE', refused: 'KYC_PROVIDER_ERROR', unauthorized: 'KYC_PROVIDER_ERROR', malformed_answer: 'KYC_PROVIDER_ERROR' },
    // Before provider_settings: idv_provider_configs, sealed per tenant and provider.
    legacyContext: (tenantId: string) => `idv:${tenantId}:${name}`,
  });
}
