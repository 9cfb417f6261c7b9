import type { Clock } from '../../platform/clock.js';
import { randomToken, sha256Hex } from '../../platform/crypto/hash.js';
import type { SecretBox } from '../../platform/crypto/secrets.js';
import type { BusinessProfileEndpoint } from '../../providers/business-profile/port.js';
import { SANDBOX_PREFIX } from '../../providers/business-profile/business-profile-a/sandbox/plugin.js';
import type { SandboxAccount } from '../../providers/business-profile/business-profile-a/sandbox/service.js';
import type { BusinessProfilesRepo } from './bp-repo.js';
import type { BusinessProfileConfigRow } from './table.js';

export const PROVIDER = 'business-profile-a';
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export interface BusinessProfileSettings {
  baseUrl: string;
  apiKey: string;
  webhookSecret: string;
}

/**
 * Per-tenant settings of business-profile-a. A tenant without settings uses the built-in
 * sandbox: an API key and webhook secret are generated on first use. Key and secret are sealed.
 */
export function createBusinessProfileConfig(deps: { repo: BusinessProfilesRepo; secrets: SecretBox; clock: Clock; publicBaseUrl: () => string }) {
  const { repo, secrets, clock, publicBaseUrl } = deps;
  const keyContext = (tenantId: string) => `${PROVIDER}:api-key:${tenantId}`;
  const secretContext = (tenantId: string) => `${PROVIDER}:webhook-secret:${tenantId}`;
  const webhookUrl = (tenantId: string) => `${publicBaseUrl()}/callbacks/${PROVIDER}/${tenantId}`;

  function sealedRow(tenantId: string, settings: { baseUrl: string | null; apiKey: string; webhookSecret: string }) {
    return {
      provider: PROVIDER,
      baseUrl: settings.baseUrl,
      apiKeySealed: secrets.encrypt(settings.apiKey, keyContext(tenantId)),
      apiKeyDigest: sha256Hex(settings.apiKey),
      webhookSecretSealed: secrets.encrypt(settings.webhookSecret, secretContext(tenantId)),
      updatedAt: clock.now(),
    };
  }

  async function row(tenantId: string, create: boolean): Promise<BusinessProfileConfigRow | undefined> {
    if (!UUID_RE.test(tenantId)) return undefined;
    const existing = await repo.findConfig(tenantId, PROVIDER);
    if (existing || !create) return existing;
    const fresh = sealedRow(tenantId, { baseUrl: null, apiKey: `sk_sandbox_${randomToken(24)}`, webhookSecret: randomToken(32) });
    await repo.insertConfigIfAbsent(tenantId, { ...fresh, createdAt: fresh.updatedAt });
    return repo.findConfig(tenantId, PROVIDER);
  }

  async function account(r: BusinessProfileConfigRow): Promise<SandboxAccount> {
    return { accountId: r.tenantId, webhookUrl: webhookUrl(r.tenantId), webhookSecret: await secrets.decrypt(r.webhookSecretSealed, secretContext(r.tenantId)) };
  }

  return {
    webhookUrl,

    async endpoint(tenantId: string): Promise<BusinessProfileEndpoint> {
      const r = (await row(tenantId, true))!;
      return { baseUrl: r.baseUrl ?? `${publicBaseUrl()}${SANDBOX_PREFIX}`, apiKey: await secrets.decrypt(r.apiKeySealed, keyContext(tenantId)) };
    },

    /** The secret the tenant's webhooks are signed with; undefined for a tenant with no settings. */
    async webhookSecret(tenantId: string): Promise<string | undefined> {
      const r = await row(tenantId, false);
      return r ? secrets.decrypt(r.webhookSecretSealed, secretContext(tenantId)) : undefined;
    },

    /** The sandbox's credential store: the account of a presented API key. */
    async sandboxAccountByKey(apiKey: string): Promise<SandboxAccount | undefined> {
      const r = await repo.findSandboxConfigByDigest(PROVIDER, sha256Hex(apiKey));
      return r ? account(r) : undefined;
    },

    async sandboxAccountById(tenantId: string): Promise<SandboxAccount | undefined> {
      const r = await row(tenantId, false);
      return r && r.baseUrl === null ? account(r) : undefined;
    },

    /** Points the tenant at a real provider, or back at the sandbox (null) with a fresh key and secret. */
    async configure(tenantId: string, settings: BusinessProfileSettings | null): Promise<void> {
      const values = settings
        ? { baseUrl: settings.baseUrl.replace(/\/+$/, ''), apiKey: settings.apiKey, webhookSecret: settings.webhookSecret }
        : { baseUrl: null, apiKey: `sk_sandbox_${randomToken(24)}`, webhookSecret: randomToken(32) };
      await repo.upsertConfig(tenantId, sealedRow(tenantId, values));
    },

    /** What an operator may see: where the tenant points and the webhook URL to register (no secrets). */
    async view(tenantId: string): Promise<{ provider: string; baseUrl: string; sandbox: boolean; webhookUrl: string; apiKeyLast4: string }> {
      const r = (await row(tenantId, true))!;
      const apiKey = await secrets.decrypt(r.apiKeySealed, keyContext(tenantId));
      return {
        provider: PROVIDER,
        baseUrl: r.baseUrl ?? `${publicBaseUrl()}${SANDBOX_PREFIX}`,
        sandbox: r.baseUrl === null,
        webhookUrl: webhookUrl(tenantId),
        apiKeyLast4: apiKey.slice(-4),
      };
    },
  };
}

export type BusinessProfileConfig = ReturnType<typeof createBusinessProfileConfig>;
