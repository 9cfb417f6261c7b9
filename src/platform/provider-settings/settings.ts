import { and, eq } from 'drizzle-orm';
import type { Clock } from '../clock.js';
import type { SecretBox } from '../crypto/secrets.js';
import type { Db } from '../db/client.js';
import { providerSettings } from './table.js';

/**
 * What a provider needs configured, declared by the module that uses it. `settings` are
 * public (shown by `provider show`); `secrets` are read from files by the CLI and stored
 * sealed, never shown.
 */
export interface ProviderSpec {
  kind: string;
  provider: string;
  /** One line for `provider list`. */
  description: string;
  /** Public settings: name -> required. */
  settings: Record<string, { required: boolean; description: string }>;
  /** Secret settings: name -> required (each given as `--secret NAME=PATH`). */
  secrets: Record<string, { required: boolean; description: string }>;
  /** Checks the settings before they are stored (e.g. a URL shape); throws ProviderSettingsError. */
  validate?: (input: { baseUrl: string; settings: Record<string, string> }) => void;
}

/** A tenant's settings for a provider; `baseUrl` null means the built-in sandbox. */
export interface ProviderConfig {
  baseUrl: string | null;
  settings: Record<string, string>;
  secrets: Record<string, string>;
}

export class ProviderSettingsError extends Error {}

export interface ProviderSettings {
  /** Modules declare their providers once, at construction. */
  declare(spec: ProviderSpec): void;
  specs(): ProviderSpec[];
  /** Points the tenant at the real provider. Unknown or missing names are refused. */
  configure(tenantId: string, kind: string, provider: string, input: { baseUrl: string; settings: Record<string, string>; secrets: Record<string, string> }): Promise<void>;
  /** Back to the built-in sandbox (the row keeps no secret). */
  useSandbox(tenantId: string, kind: string, provider: string): Promise<void>;
  /** The tenant's settings with secrets opened; a tenant never configured uses the sandbox. */
  get(tenantId: string, kind: string, provider: string): Promise<ProviderConfig>;
  /** As get, without the secrets (only their names): what an operator may see. */
  view(tenantId: string, kind: string, provider: string): Promise<{ kind: string; provider: string; sandbox: boolean; baseUrl: string | null; settings: Record<string, string>; secrets: string[] }>;
}

const context = (tenantId: string, kind: string, provider: string) => `provider:${tenantId}:${kind}:${provider}`;

export function createProviderSettings(deps: { db: Db; secrets: SecretBox; clock: Clock }): ProviderSettings {
  const { db, secrets, clock } = deps;
  const specs = new Map<string, ProviderSpec>();
  const key = (kind: string, provider: string) => `${kind}/${provider}`;
  const specOf = (kind: string, provider: string): ProviderSpec => {
    const spec = specs.get(key(kind, provider));
    if (!spec) {
      const known = [...specs.values()].map((s) => `${s.kind} ${s.provider}`).join(', ');
      throw new ProviderSettingsError(`no provider "${provider}" of kind "${kind}" (known: ${known || 'none'})`);
    }
    return spec;
  };
  const read = async (tenantId: string, kind: string, provider: string) => {
    const [row] = await db
      .select()
      .from(providerSettings)
      .where(and(eq(providerSettings.tenantId, tenantId), eq(providerSettings.kind, kind), eq(providerSettings.provider, provider)))
      .limit(1);
    return row;
  };
  const write = async (tenantId: string, kind: string, provider: string, values: { baseUrl: string | null; settings: Record<string, string>; secretsSealed: string | null }) => {
    const now = clock.now();
    await db
      .insert(providerSettings)
      .values({ tenantId, kind, provider, ...values, createdAt: now, updatedAt: now })
      .onConflictDoUpdate({ target: [providerSettings.tenantId, providerSettings.kind, providerSettings.provider], set: { ...values, updatedAt: now } });
  };

  return {
    declare(spec) {
      specs.set(key(spec.kind, spec.provider), spec);
    },
    specs: () => [...specs.values()],
    async configure(tenantId, kind, provider, input) {
      const spec = specOf(kind, provider);
      let url: URL;
      try {
        url = new URL(input.baseUrl);
      } catch {
        throw new ProviderSettingsError('--base-url must be an absolute URL');
      }
      if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new ProviderSettingsError('--base-url must be http or https');
      const check = (given: Record<string, string>, declared: ProviderSpec['settings'], what: string) => {
        for (const name of Object.keys(given)) {
          if (!(name in declared)) throw new ProviderSettingsError(`${provider} takes no ${what} "${name}" (it takes: ${Object.keys(declared).join(', ') || 'none'})`);
        }
        for (const [name, d] of Object.entries(declared)) {
          if (d.required && !given[name]) throw new ProviderSettingsError(`${provider} needs the ${what} "${name}": ${d.description}`);
        }
      };
      check(input.settings, spec.settings, 'setting');
      check(input.secrets, spec.secrets, 'secret');
      spec.validate?.({ baseUrl: input.baseUrl, settings: input.settings });
      const sealed = Object.keys(input.secrets).length > 0 ? secrets.encrypt(JSON.stringify(input.secrets), context(tenantId, kind, provider)) : null;
      await write(tenantId, kind, provider, { baseUrl: input.baseUrl.replace(/\/+$/, ''), settings: input.settings, secretsSealed: sealed });
    },
    async useSandbox(tenantId, kind, provider) {
      specOf(kind, provider);
      await write(tenantId, kind, provider, { baseUrl: null, settings: {}, secretsSealed: null });
    },
    async get(tenantId, kind, provider) {
      const row = await read(tenantId, kind, provider);
      if (!row || row.baseUrl === null) return { baseUrl: null, settings: {}, secrets: {} };
      const opened = row.secretsSealed ? (JSON.parse(await secrets.decrypt(row.secretsSealed, context(tenantId, kind, provider))) as Record<string, string>) : {};
      return { baseUrl: row.baseUrl, settings: row.settings, secrets: opened };
    },
    async view(tenantId, kind, provider) {
      const spec = specOf(kind, provider);
      const row = await read(tenantId, kind, provider);
      const sandbox = !row || row.baseUrl === null;
      return {
        kind,
        provider,
        sandbox,
        baseUrl: sandbox ? null : row.baseUrl,
        settings: sandbox ? {} : row.settings,
        secrets: sandbox ? [] : Object.keys(spec.secrets),
      };
    },
  };
}
