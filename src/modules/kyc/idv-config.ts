import type { Clock } from '../../platform/clock.js';
import { randomToken } from '../../platform/crypto/hash.js';
import type { SecretBox } from '../../platform/crypto/secrets.js';
import type { IdvEndpoint, IdvProviderConfig, IdvProviderName } from '../../providers/idv/port.js';
import { KycErrors } from './errors.js';
import type { KycRepo } from './repo.js';
import type { IdvProviderConfigRow } from './table.js';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Where the built-in sandbox of a provider answers, under PUBLIC_BASE_URL. */
export function sandboxBaseUrl(publicBaseUrl: string, provider: IdvProviderName): string {
  return `${publicBaseUrl}/sandbox/${provider}`;
}

/**
 * Per-tenant provider settings. A tenant without settings uses the built-in sandbox, with a
 * webhook secret generated on first use; secrets are stored sealed by the SecretBox.
 */
export function createIdvConfigService(deps: {
  repo: KycRepo;
  secrets: SecretBox;
  clock: Clock;
  publicBaseUrl: () => string;
  /** false (IDV_SANDBOX=off): a tenant without a configured provider cannot start a session. */
  sandboxEnabled: boolean;
}) {
  const { repo, secrets, clock, publicBaseUrl, sandboxEnabled } = deps;
  const context = (tenantId: string, provider: string) => `idv:${tenantId}:${provider}`;

  async function rowFor(tenantId: string, provider: IdvProviderName, create: boolean): Promise<IdvProviderConfigRow | undefined> {
    if (!UUID_RE.test(tenantId)) return undefined;
    const existing = await repo.findConfig(tenantId, provider);
    if (existing || !create) return existing;
    const now = clock.now();
    await repo.insertConfigIfAbsent(tenantId, {
      provider,
      baseUrl: null,
      clientId: tenantId,
      webhookSecretSealed: secrets.encrypt(randomToken(32), context(tenantId, provider)),
      createdAt: now,
      updatedAt: now,
    });
    return repo.findConfig(tenantId, provider);
  }

  return {
    /** Where and as whom to call the provider for this tenant (the sandbox unless configured). */
    async endpoint(tenantId: string, provider: IdvProviderName): Promise<IdvEndpoint> {
      const row = await rowFor(tenantId, provider, sandboxEnabled);
      if (!row || (row.baseUrl === null && !sandboxEnabled)) throw KycErrors.providerNotConfigured(provider);
      return {
        provider,
        baseUrl: row.baseUrl ?? sandboxBaseUrl(publicBaseUrl(), provider),
        clientId: row.clientId,
        secret: await secrets.decrypt(row.webhookSecretSealed, context(tenantId, provider)),
      };
    },

    /** The secret webhooks of this tenant are signed with; undefined for an unknown tenant. */
    async webhookSecret(tenantId: string, provider: IdvProviderName): Promise<string | undefined> {
      const row = await rowFor(tenantId, provider, false);
      return row ? secrets.decrypt(row.webhookSecretSealed, context(tenantId, provider)) : undefined;
    },

    /** For the built-in sandbox: the secret of a client (tenant) that uses the sandbox, else undefined. */
    async sandboxSecret(provider: IdvProviderName, clientId: string): Promise<string | undefined> {
      if (!sandboxEnabled) return undefined;
      const row = await rowFor(clientId, provider, false);
      if (!row || row.baseUrl !== null) return undefined;
      return secrets.decrypt(row.webhookSecretSealed, context(clientId, provider));
    },

    /** Points a tenant at a real provider, or back at the sandbox (null) with a fresh secret. */
    async configure(tenantId: string, provider: IdvProviderName, config: IdvProviderConfig | null): Promise<void> {
      await repo.upsertConfig(tenantId, {
        provider,
        baseUrl: config ? config.baseUrl.replace(/\/+$/, '') : null,
        clientId: config ? config.clientId : tenantId,
        webhookSecretSealed: secrets.encrypt(config ? config.webhookSecret : randomToken(32), context(tenantId, provider)),
        updatedAt: clock.now(),
      });
    },
  };
}

export type IdvConfigService = ReturnType<typeof createIdvConfigService>;
