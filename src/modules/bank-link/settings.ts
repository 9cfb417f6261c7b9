import { randomBytes } from 'node:crypto';
import type { Clock } from '../../platform/clock.js';
import type { SecretBox } from '../../platform/crypto/secrets.js';
import type { BankLinkEndpoint } from '../../providers/bank-link/port.js';
import { normalizeAllowEntry } from '../../platform/http/redirect-allow.js';
import type { BankLinkRepo } from './repo.js';
import type { BankLinkSettingsRow } from './table.js';

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface ProviderSettingsInput {
  /** The provider's environment URL; null = the built-in sandbox (new credentials). */
  baseUrl: string | null;
  environment?: 'sandbox' | 'production';
  clientId?: string;
  secret?: string;
}

export interface ResolvedSettings {
  row: BankLinkSettingsRow;
  endpoint: BankLinkEndpoint;
  sandbox: boolean;
}

export class SettingsInputError extends Error {}

/**
 * Per-tenant bank-link settings. A tenant without settings uses the built-in sandbox: a client
 * id and secret are made on first use and the sandbox account opened with them (once per
 * process, so the sandbox always knows the current webhook address). Secrets sealed.
 */
export function createBankLinkSettings(deps: {
  repo: BankLinkRepo;
  secrets: SecretBox;
  clock: Clock;
  sandboxBaseUrl: () => string;
  webhookUrl: (tenantId: string) => string;
  provisionSandbox: (client: { clientId: string; secret: string; webhookUrl: string }) => Promise<void>;
}) {
  const { repo, secrets, clock } = deps;
  const context = (tenantId: string) => `bank-link:${tenantId}`;
  const provisioned = new Map<string, string>();

  async function resolve(row: BankLinkSettingsRow): Promise<ResolvedSettings> {
    const secret = await secrets.decrypt(row.secretSealed, context(row.tenantId));
    const sandbox = row.baseUrl === null;
    if (sandbox) {
      const webhookUrl = deps.webhookUrl(row.tenantId);
      const key = `${row.clientId}|${webhookUrl}`;
      if (provisioned.get(row.tenantId) !== key) {
        await deps.provisionSandbox({ clientId: row.clientId, secret, webhookUrl });
        provisioned.set(row.tenantId, key);
      }
    }
    return { row, sandbox, endpoint: { baseUrl: row.baseUrl ?? deps.sandboxBaseUrl(), clientId: row.clientId, secret } };
  }

  function sandboxRow(tenantId: string): Omit<BankLinkSettingsRow, 'tenantId' | 'createdAt' | 'redirectAllow' | 'originatorClientId'> {
    return {
      baseUrl: null,
      environment: 'sandbox',
      clientId: randomBytes(12).toString('hex'),
      secretSealed: secrets.encrypt(randomBytes(15).toString('hex'), context(tenantId)),
      updatedAt: clock.now(),
    };
  }

  return {
    /** The tenant's settings and provider endpoint; the sandbox is set up on first use. */
    async resolve(tenantId: string): Promise<ResolvedSettings> {
      let row = await repo.findSettings(tenantId);
      if (!row) {
        await repo.insertSettingsIfAbsent(tenantId, { ...sandboxRow(tenantId), redirectAllow: [], originatorClientId: null, createdAt: clock.now() });
        row = (await repo.findSettings(tenantId))!;
      }
      return resolve(row);
    },

    /** The settings of a tenant that has any (webhooks): undefined otherwise, nothing created. */
    async existing(tenantId: string): Promise<ResolvedSettings | undefined> {
      if (!UUID_RE.test(tenantId)) return undefined;
      const row = await repo.findSettings(tenantId);
      return row ? resolve(row) : undefined;
    },

    /** Points the tenant at a provider environment (credentials required), or back at the sandbox. */
    async configure(tenantId: string, input: ProviderSettingsInput): Promise<void> {
      if (!UUID_RE.test(tenantId)) throw new SettingsInputError('the tenant id is not a UUID');
      const existing = await repo.findSettings(tenantId);
      const keep = { redirectAllow: existing?.redirectAllow ?? [], originatorClientId: null };
      if (input.baseUrl === null) {
        await repo.upsertSettings(tenantId, { ...sandboxRow(tenantId), ...keep });
      } else {
        if (!/^https?:\/\/[^\s]+$/.test(input.baseUrl)) throw new SettingsInputError('--base-url must be an http(s) URL');
        if (!input.clientId || !input.secret) throw new SettingsInputError('--client-id and a secret are required with --base-url');
        await repo.upsertSettings(tenantId, {
          baseUrl: input.baseUrl.replace(/\/+$/, ''),
          environment: input.environment ?? 'sandbox',
          clientId: input.clientId,
          secretSealed: secrets.encrypt(input.secret, context(tenantId)),
          updatedAt: clock.now(),
          ...keep,
        });
      }
      provisioned.delete(tenantId);
    },

    /** Replaces the allow-list of Link return URLs (each admits its path and below). */
    async setRedirectAllow(tenantId: string, urls: string[]): Promise<string[]> {
      const entries: string[] = [];
      for (const url of urls) {
        const result = normalizeAllowEntry(url);
        if ('problem' in result) throw new SettingsInputError(result.problem);
        entries.push(result.entry);
      }
      await this.resolve(tenantId);
      await repo.updateSettings(tenantId, { redirectAllow: entries, updatedAt: clock.now() });
      return entries;
    },

    /** Records which originator is the tenant's own (its funding profile). */
    async setOwnOriginator(tenantId: string, originatorClientId: string | null): Promise<void> {
      await this.resolve(tenantId);
      await repo.updateSettings(tenantId, { originatorClientId, updatedAt: clock.now() });
    },

    /** What an operator may see: the secret only for the built-in sandbox (a test credential). */
    async view(tenantId: string) {
      const { row, endpoint, sandbox } = await this.resolve(tenantId);
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
