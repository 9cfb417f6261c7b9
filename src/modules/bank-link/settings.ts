import { randomBytes } from 'node:crypto';
import type { Clock } from '../../platform/clock.js';
import { ProviderSettingsError, type ProviderConfig, type ProviderSettings } from '../../platform/provider-settings/settings.js';
import type { BankLinkEndpoint } from '../../providers/bank-link/port.js';
import { normalizeAllowEntry } from '../../platform/http/redirect-allow.js';
import { BankLinkErrors } from './errors.js';
import type { BankLinkRepo } from './repo.js';

/** The provider-settings kind and provider of bank-link (Plaid's protocol). */
export const BANK_LINK_KIND = 'bank-link';
export const BANK_LINK_PROVIDER = 'plaid';

export interface ProviderSettingsInput {
  /** The provider's environment URL; null = the built-in sandbox (new credentials). */
  baseUrl: string | null;
  environment?: 'sandbox' | 'production';
  clientId?: string;
  secret?: string;
}

/** A tenant's bank-link settings: the provider's (provider_settings) and its own extras (bank_link_settings). */
export interface BankLinkSettingsView {
  tenantId: string;
  baseUrl: string | null;
  environment: 'sandbox' | 'production';
  clientId: string;
  originatorClientId: string | null;
  redirectAllow: string[];
}

export interface ResolvedSettings {
  row: BankLinkSettingsView;
  endpoint: BankLinkEndpoint;
  sandbox: boolean;
}

export class SettingsInputError extends Error {}

/**
 * Per-tenant bank-link settings. Where the provider is and its credentials are the platform's
 * provider settings (kind `bank-link`, provider `plaid`: settings `client-id`, `environment`,
 * secret `secret`); the Link return allow-list and the tenant's own originator stay in
 * bank_link_settings. A tenant without settings uses the built-in sandbox: a client id and
 * secret are made on first use and the sandbox account opened with them (once per process, so
 * the sandbox always knows the current webhook address).
 */
export function createBankLinkSettings(deps: {
  repo: BankLinkRepo;
  providerSettings: ProviderSettings;
  clock: Clock;
  sandboxBaseUrl: () => string;
  /** Whether the built-in sandbox is served (SANDBOXES): a tenant on it gets 503 PROVIDER_NOT_CONFIGURED otherwise. */
  sandboxes: boolean;
  webhookUrl: (tenantId: string) => string;
  provisionSandbox: (client: { clientId: string; secret: string; webhookUrl: string }) => Promise<void>;
}) {
  const { repo, providerSettings, clock } = deps;
  const provisioned = new Map<string, string>();
  providerSettings.declare({
    kind: BANK_LINK_KIND,
    provider: BANK_LINK_PROVIDER,
    description: "bank-account linking (Plaid's protocol); the built-in sandbox unless configured",
    settings: {
      'client-id': { required: true, description: 'the client id of the provider account' },
      environment: { required: false, description: 'sandbox (default) or production: the sandbox originator routes answer only for sandbox' },
    },
    secrets: { secret: { required: true, description: 'the secret of the provider account' } },
    validate: ({ settings }) => {
      const environment = settings.environment ?? 'sandbox';
      if (environment !== 'sandbox' && environment !== 'production') throw new ProviderSettingsError('--environment must be sandbox or production');
    },
    sandbox: {
      generate: () => ({ settings: { 'client-id': randomBytes(12).toString('hex'), environment: 'sandbox' }, secrets: { secret: randomBytes(15).toString('hex') } }),
    },
    // Before provider_settings: bank_link_settings.secret_sealed.
    legacyContext: (tenantId) => `bank-link:${tenantId}`,
    // A new provider account: the own originator belonged to the old one.
    changed: async (tenantId) => {
      await repo.updateSettings(tenantId, { originatorClientId: null, updatedAt: clock.now() });
      provisioned.delete(tenantId);
    },
  });

  async function resolve(tenantId: string, config: ProviderConfig): Promise<ResolvedSettings> {
    const extras = await repo.findSettings(tenantId);
    const clientId = config.settings['client-id'] ?? '';
    const secret = config.secrets.secret ?? '';
    const sandbox = config.baseUrl === null;
    if (sandbox) {
      const webhookUrl = deps.webhookUrl(tenantId);
      const key = `${clientId}|${webhookUrl}`;
      if (provisioned.get(tenantId) !== key) {
        await deps.provisionSandbox({ clientId, secret, webhookUrl });
        provisioned.set(tenantId, key);
      }
    }
    const row: BankLinkSettingsView = {
      tenantId,
      baseUrl: config.baseUrl,
      environment: config.settings.environment === 'production' ? 'production' : 'sandbox',
      clientId,
      originatorClientId: extras?.originatorClientId ?? null,
      redirectAllow: extras?.redirectAllow ?? [],
    };
    return { row, sandbox, endpoint: { baseUrl: config.baseUrl ?? deps.sandboxBaseUrl(), clientId, secret } };
  }

  /** Changes the extras, making their row on first use. */
  async function setExtras(tenantId: string, changes: { redirectAllow?: string[]; originatorClientId?: string | null }): Promise<void> {
    const now = clock.now();
    await repo.insertSettingsIfAbsent(tenantId, { redirectAllow: [], originatorClientId: null, createdAt: now, updatedAt: now });
    await repo.updateSettings(tenantId, { ...changes, updatedAt: now });
  }

  /** The tenant's settings whether or not its provider can be called (operator commands). */
  const settingsOf = async (tenantId: string) => resolve(tenantId, await providerSettings.resolve(tenantId, BANK_LINK_KIND, BANK_LINK_PROVIDER));

  return {
    /**
     * The tenant's settings and provider endpoint, to call the provider with; the sandbox is
     * set up on first use. A tenant on the built-in sandbox while it is not served is 503
     * PROVIDER_NOT_CONFIGURED: no provider is asked.
     */
    async resolve(tenantId: string): Promise<ResolvedSettings> {
      const config = await providerSettings.resolve(tenantId, BANK_LINK_KIND, BANK_LINK_PROVIDER);
      if (config.baseUrl === null && !deps.sandboxes) throw BankLinkErrors.notConfigured();
      return resolve(tenantId, config);
    },

    /** The settings of a tenant that has any (webhooks): undefined otherwise, nothing created. */
    async existing(tenantId: string): Promise<ResolvedSettings | undefined> {
      const config = await providerSettings.find(tenantId, BANK_LINK_KIND, BANK_LINK_PROVIDER);
      if (config?.baseUrl === null && !deps.sandboxes) return undefined;
      return config && config.settings['client-id'] ? resolve(tenantId, config) : undefined;
    },

    /** Points the tenant at a provider environment (credentials required), or back at the sandbox. */
    async configure(tenantId: string, input: ProviderSettingsInput): Promise<void> {
      try {
        if (input.baseUrl === null) return await providerSettings.useSandbox(tenantId, BANK_LINK_KIND, BANK_LINK_PROVIDER);
        if (!/^https?:\/\/[^\s]+$/.test(input.baseUrl)) throw new SettingsInputError('--base-url must be an http(s) URL');
        if (!input.clientId || !input.secret) throw new SettingsInputError('--client-id and a secret are required with --base-url');
        await providerSettings.configure(tenantId, BANK_LINK_KIND, BANK_LINK_PROVIDER, {
          baseUrl: input.baseUrl,
          settings: { 'client-id': input.clientId, environment: input.environment ?? 'sandbox' },
          secrets: { secret: input.secret },
        });
      } catch (error) {
        if (error instanceof ProviderSettingsError) throw new SettingsInputError(error.message);
        throw error;
      }
    },

    /** Replaces the allow-list of Link return URLs (each admits its path and below). */
    async setRedirectAllow(tenantId: string, urls: string[]): Promise<string[]> {
      const entries: string[] = [];
      for (const url of urls) {
        const result = normalizeAllowEntry(url);
        if ('problem' in result) throw new SettingsInputError(result.problem);
        entries.push(result.entry);
      }
      await settingsOf(tenantId);
      await setExtras(tenantId, { redirectAllow: entries });
      return entries;
    },

    /** Records which originator is the tenant's own (its funding profile). */
    async setOwnOriginator(tenantId: string, originatorClientId: string | null): Promise<void> {
      await settingsOf(tenantId);
      await setExtras(tenantId, { originatorClientId });
    },

    /** What an operator may see: the secret only for the built-in sandbox (a test credential). */
    async view(tenantId: string) {
      const { row, endpoint, sandbox } = await settingsOf(tenantId);
      return {
        provider: sandbox ? 'built-in sandbox' : row.baseUrl,
        environment: row.environment,
        baseUrl: endpoint.baseUrl,
        clientId: row.clientId,
        /** The built-in sandbox's test secret; a real provider's secret is never shown. */
        sandboxSecret: sandbox ? endpoint.secret : null,
        redirectAllow: row.redirectAllow,
        originatorClientId: row.originatorClientId,
        webhookUrl: deps.webhookUrl(tenantId),
      };
    },
  };
}

export type BankLinkSettingsService = ReturnType<typeof createBankLinkSettings>;
