import { randomToken, sha256Hex } from '../../../platform/crypto/hash.js';
import { ProviderSettingsError, type ProviderConfig, type ProviderSettings } from '../../../platform/provider-settings/settings.js';
import { defineProvider } from '../../../platform/providers/define.js';
import { ProviderError } from '../../../platform/providers/errors.js';
import type { BusinessProfileClient } from '../port.js';
import { createBusinessProfileAClient } from './http.js';
import { parseEvent, SIGNATURE_HEADER, verifySignature } from './protocol.js';

const KIND = 'business-profile';
const NAME = 'business-profile-a';

/** Where the provider's webhooks for a tenant are to be sent (the route is the entities module's). */
export const webhookPath = (tenantId: string) => `/callbacks/${NAME}/${tenantId}`;

/** An account of the built-in sandbox: the tenant whose key was presented, where its webhooks go and their secret. */
export interface BusinessProfileASandboxAccount {
  accountId: string;
  webhookUrl: string;
  webhookSecret: string;
}

/**
 * The sandbox's credential store, over the tenants' sandbox rows in provider_settings: a
 * presented API key is found by its SHA-256 (the sandbox row's public setting
 * `api-key-digest`), then compared whole. A tenant pointed at a real provider has no account.
 */
export function businessProfileASandboxAccounts(settings: ProviderSettings, publicBaseUrl: () => string) {
  const find = (tenantId: string) => settings.find(tenantId, KIND, NAME);
  const account = (tenantId: string, c: ProviderConfig): BusinessProfileASandboxAccount => ({
    accountId: tenantId,
    webhookUrl: `${publicBaseUrl()}${webhookPath(tenantId)}`,
    webhookSecret: c.secrets['webhook-secret']!,
  });
  return {
    async lookupAccount(apiKey: string): Promise<BusinessProfileASandboxAccount | undefined> {
      const tenantId = await settings.findSandboxTenant(KIND, NAME, 'api-key-digest', sha256Hex(apiKey));
      if (!tenantId) return undefined;
      const c = await find(tenantId);
      return c && c.baseUrl === null && c.secrets['api-key'] === apiKey ? account(tenantId, c) : undefined;
    },
    async accountById(tenantId: string): Promise<BusinessProfileASandboxAccount | undefined> {
      const c = await find(tenantId);
      return c && c.baseUrl === null && c.secrets['webhook-secret'] ? account(tenantId, c) : undefined;
    },
  };
}

/**
 * business-profile-a (a Middesk-style KYB provider, docs/providers.md): businesses created with
 * a Bearer API key; webhooks signed with HMAC-SHA256 of the raw body under the tenant's webhook
 * secret. The built-in sandbox's accounts are made per tenant (an API key whose SHA-256 is the
 * public setting `api-key-digest`, and a webhook secret).
 */
export function businessProfileA(deps: { sandbox?: { baseUrl(): string } }) {
  const { sandbox } = deps;
  return defineProvider({
    kind: KIND,
    name: NAME,
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
    adapter(config): BusinessProfileClient {
      const apiKey = config.secrets['api-key'];
      if (!apiKey) throw ProviderError.notConfigured(KIND, NAME, 'its settings lack the api-key');
      return { ...createBusinessProfileAClient({ baseUrl: config.baseUrl, apiKey }), parseEvent: (raw) => parseEvent(raw) };
    },
    webhooks: {
      /** HMAC-SHA256 of the exact body under the tenant's webhook secret, hex, in x-middesk-signature-256. */
      verify: (request, { config }) => {
        const secret = config.secrets['webhook-secret'];
        return Boolean(secret) && verifySignature(request.rawBody, request.headers[SIGNATURE_HEADER], secret!);
      },
      /** The event's `id` (the same on every retry); a body without one is known by its digest. */
      id: (payload, request) => {
        const id = (payload as { id?: unknown } | null)?.id;
        return typeof id === 'string' && id.length > 0 ? id : `sha256:${sha256Hex(request.rawBody)}`;
      },
    },
    ...(sandbox
      ? {
          sandbox: {
            config: async (_tenantId: string, stored: { settings: Record<string, string>; secrets: Record<string, string> }) => ({
              baseUrl: sandbox.baseUrl(),
              settings: stored.settings,
              secrets: stored.secrets,
            }),
            generate: () => {
              const apiKey = `sk_sandbox_${randomToken(24)}`;
              return { settings: { 'api-key-digest': sha256Hex(apiKey) }, secrets: { 'api-key': apiKey, 'webhook-secret': randomToken(32) } };
            },
          },
        }
      : {}),
    // Unreachable answers the generic 503 PROVIDER_UNAVAILABLE; the rest is the provider's 502.
    codes: { refused: 'BUSINESS_PROFILE_PROVIDER_ERROR', unauthorized: 'BUSINESS_PROFILE_PROVIDER_ERROR', malformed_answer: 'BUSINESS_PROFILE_PROVIDER_ERROR' },
    // Before provider_settings: business_profile_configs, each secret sealed on its own.
    legacyContext: (tenantId, name) => `${NAME}:${name}:${tenantId}`,
  });
}
