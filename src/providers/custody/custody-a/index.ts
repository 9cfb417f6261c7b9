import { createHash } from 'node:crypto';
import type { Clock } from '../../../platform/clock.js';
import { ProviderSettingsError } from '../../../platform/provider-settings/settings.js';
import { defineProvider } from '../../../platform/providers/define.js';
import { ProviderError } from '../../../platform/providers/errors.js';
import { createCustodyAClient } from './http.js';
import { isEd25519PrivateKey, verifyWebhook, WEBHOOK_SIGNATURE_HEADER, WEBHOOK_TIMESTAMP_HEADER } from './signing.js';

const WEBHOOK_WINDOW_SECONDS = 300;

/** Where custody-a's webhooks for a tenant are to be sent (the route is the custody module's). */
export const webhookPath = (tenantId: string) => `/custody-a/webhooks/${tenantId}`;

/** What the definition needs of the built-in sandbox: its address and a tenant's account there. */
export interface CustodyASandboxAccess {
  baseUrl(): string;
  credentialsFor(label: string, webhookUrl: string): Promise<{ apiKey: string; signingKey: string }>;
}

/**
 * custody-a: vaults of wallets, transfers and travel-rule transfers (docs/providers.md).
 * Requests are Ed25519-signed; webhooks are P-256-signed with the provider's key, which is
 * fetched once per adapter (per tenant per settings version) when not configured.
 */
export function custodyA(deps: { clock: Clock; publicBaseUrl: () => string; fetch?: typeof fetch; sandbox?: CustodyASandboxAccess }) {
  const http = { clock: deps.clock, ...(deps.fetch ? { fetch: deps.fetch } : {}) };
  const { sandbox } = deps;
  return defineProvider({
    kind: 'custody',
    name: 'custody-a',
    description: 'custody-a: vaults of wallets, transfers and travel-rule transfers (Ed25519-signed requests, P-256-signed webhooks)',
    settings: {
      apiKey: { required: true, description: 'the API access key id (Api-Access-Key)' },
      webhookPublicKey: { required: false, description: "the provider's P-256 webhook key (SPKI PEM); fetched from /v2/webhooks/public-key when absent" },
    },
    secrets: { signingKey: { required: true, description: 'the Ed25519 private key (PKCS#8 PEM) requests are signed with' } },
    validate: ({ settings }) => {
      if (settings.webhookPublicKey && !settings.webhookPublicKey.includes('BEGIN PUBLIC KEY')) throw new ProviderSettingsError('webhookPublicKey must be an SPKI PEM');
    },
    adapter(config) {
      const { apiKey } = config.settings;
      const { signingKey } = config.secrets;
      if (!apiKey || !signingKey || !isEd25519PrivateKey(signingKey)) throw ProviderError.notConfigured('custody', 'custody-a', 'its settings lack apiKey or an Ed25519 signingKey');
      const client = createCustodyAClient({ baseUrl: config.baseUrl, apiKey, signingKey }, http);
      // The webhook key is fetched once per adapter; a failed fetch is tried again next time.
      let key: Promise<string> | undefined = config.settings.webhookPublicKey ? Promise.resolve(config.settings.webhookPublicKey) : undefined;
      return {
        ...client,
        webhookPublicKey() {
          key ??= client.webhookPublicKey().catch((error: unknown) => {
            key = undefined;
            throw error;
          });
          return key;
        },
      };
    },
    webhooks: {
      async verify(request, { port }) {
        const timestamp = request.headers[WEBHOOK_TIMESTAMP_HEADER];
        const signature = request.headers[WEBHOOK_SIGNATURE_HEADER];
        if (typeof timestamp !== 'string' || typeof signature !== 'string' || !/^\d{1,12}$/.test(timestamp)) return false;
        if (Math.abs(Math.floor(deps.clock.now().getTime() / 1000) - Number(timestamp)) > WEBHOOK_WINDOW_SECONDS) return false;
        const key = await port.webhookPublicKey().catch((error: unknown) => {
          throw error instanceof ProviderError && error.reason === 'not_configured' ? error : new ProviderError('unreachable', `custody-a webhook key: ${(error as Error).message}`);
        });
        return verifyWebhook(key, timestamp, request.rawBody, signature);
      },
      /** The delivery's `id` (the same on every retry); a body without one is known by its digest. */
      id: (payload, request) => {
        const id = (payload as { id?: unknown } | null)?.id;
        return typeof id === 'string' && id.length > 0 ? id : `sha256:${createHash('sha256').update(request.rawBody).digest('hex')}`;
      },
    },
    ...(sandbox
      ? {
          sandbox: {
            async config(tenantId: string) {
              const credentials = await sandbox.credentialsFor(tenantId, `${deps.publicBaseUrl()}${webhookPath(tenantId)}`);
              return { baseUrl: sandbox.baseUrl(), settings: { apiKey: credentials.apiKey }, secrets: { signingKey: credentials.signingKey } };
            },
          },
        }
      : {}),
    codes: { unreachable: 'CUSTODY_PROVIDER_UNAVAILABLE', refused: 'CUSTODY_PROVIDER_REFUSED', unauthorized: 'CUSTODY_PROVIDER_ERROR', malformed_answer: 'CUSTODY_PROVIDER_ERROR', not_found: 'CUSTODY_PROVIDER_NOT_FOUND' },
  });
}
