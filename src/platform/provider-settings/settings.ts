import { and, eq, isNotNull, isNull, or, sql } from 'drizzle-orm';
import type { Clock } from '../clock.js';
import type { SecretBox } from '../crypto/secrets.js';
import type { Db, DbOrTx } from '../db/client.js';
import { preparedQuery } from '../db/prepared.js';
import { writeTemplate, type TemplateWrite } from '../db/write-together.js';
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
  /**
   * Public settings: name -> required. A `kept` setting belongs to the tenant's use of the kind
   * rather than to the provider account (e.g. bank-link's return allow-list): configure and
   * useSandbox keep its value unless they give one.
   */
  settings: Record<string, { required: boolean; description: string; kept?: boolean }>;
  /** Secret settings: name -> required (each given as `--secret NAME=PATH`). */
  secrets: Record<string, { required: boolean; description: string }>;
  /** Checks the settings before they are stored (e.g. a URL shape); throws ProviderSettingsError. */
  validate?: (input: { baseUrl: string; settings: Record<string, string>; secrets: Record<string, string> }) => void;
  /**
   * A provider whose built-in sandbox needs credentials of its own (a client id, a webhook
   * secret): made on first use (`resolve`) and afresh on `useSandbox`. Without it the sandbox
   * row holds nothing.
   */
  sandbox?: { generate: (tenantId: string) => { settings: Record<string, string>; secrets: Record<string, string> } };
  /**
   * The context a secret was sealed under in the provider's former table (rows carried over by
   * a migration). A carried-over entry named `*` holds all the secrets sealed together as JSON
   * (a row moved from another kind or provider name).
   */
  legacyContext?: (tenantId: string, secretName: string) => string;
  /** Called after the tenant's settings changed (configure or useSandbox), e.g. to forget state tied to the old provider. */
  changed?: (tenantId: string) => Promise<void>;
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
  /**
   * Changes some public settings of the tenant's row and keeps the rest (null removes one); the
   * row is made first as `resolve` makes it. Names must be declared; the version is raised.
   */
  update(tenantId: string, kind: string, provider: string, settings: Record<string, string | null>): Promise<void>;
  /**
   * Forgets the tenant's settings: the provider is as for a tenant never configured (its
   * sandbox, made afresh where it has credentials; not configured where it has none). False
   * when there was nothing to forget.
   */
  remove(tenantId: string, kind: string, provider: string): Promise<boolean>;
  /** The tenant's settings with secrets opened; a tenant never configured uses the sandbox. */
  get(tenantId: string, kind: string, provider: string): Promise<ProviderConfig>;
  /** As get, but undefined when the tenant has no row (nothing is created; a tenant id that is not a UUID has none). */
  find(tenantId: string, kind: string, provider: string): Promise<ProviderConfig | undefined>;
  /**
   * As get, making the sandbox credentials first when the spec declares them and the tenant
   * has none yet (two first uses racing keep the first). The tenant must exist.
   */
  resolve(tenantId: string, kind: string, provider: string): Promise<ProviderConfig>;
  /**
   * What the tenant's row is at: its version (0 without a row) and whether it points at the
   * sandbox; one small read, no secret opened (the providers service's cache check).
   */
  stamp(tenantId: string, kind: string, provider: string): Promise<{ version: number; sandbox: boolean }>;
  /**
   * The same read as a part of another statement (a CTE of writeTogether's): columns `version`
   * and `base_url` of the row, none when the tenant holds none (version 0, the sandbox).
   */
  stampRead(db: DbOrTx, tenantId: string, kind: string, provider: string): TemplateWrite;
  /** The tenant whose sandbox row holds a public setting of this value (a sandbox's own credential lookup). */
  findSandboxTenant(kind: string, provider: string, setting: string, value: string): Promise<string | undefined>;
  /** As get, without the secrets (only their names): what an operator may see. */
  view(
    tenantId: string,
    kind: string,
    provider: string,
  ): Promise<{ kind: string; provider: string; sandbox: boolean; baseUrl: string | null; settings: Record<string, string>; secrets: string[]; updatedAt: string | null }>;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const context = (tenantId: string, kind: string, provider: string) => `provider:${tenantId}:${kind}:${provider}`;

/** The stamp's read as a template, for a statement that also writes (a webhook's claim): one row at most (the primary key). */
const stampTemplate = writeTemplate<'tenantId' | 'kind' | 'provider'>((q, value) =>
  q
    .select({ version: providerSettings.version, baseUrl: providerSettings.baseUrl })
    .from(providerSettings)
    .where(and(eq(providerSettings.tenantId, value('tenantId')), eq(providerSettings.kind, value('kind')), eq(providerSettings.provider, value('provider')))),
);

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
  const where = (tenantId: string, kind: string, provider: string) =>
    and(eq(providerSettings.tenantId, tenantId), eq(providerSettings.kind, kind), eq(providerSettings.provider, provider));
  // Read before every provider call and webhook (whether cached clients are current), as a prepared statement.
  const stampOf = preparedQuery<Array<{ version: number; baseUrl: string | null }>, { tenantId: string; kind: string; provider: string }>(db, 'provider_settings_stamp', (q) =>
    q
      .select({ version: providerSettings.version, baseUrl: providerSettings.baseUrl })
      .from(providerSettings)
      .where(and(eq(providerSettings.tenantId, sql.placeholder('tenantId')), eq(providerSettings.kind, sql.placeholder('kind')), eq(providerSettings.provider, sql.placeholder('provider'))))
      .limit(1),
  );
  const read = async (tenantId: string, kind: string, provider: string) => {
    const [row] = await db.select().from(providerSettings).where(where(tenantId, kind, provider)).limit(1);
    return row;
  };
  const seal = (tenantId: string, kind: string, provider: string, values: Record<string, string>) =>
    Object.keys(values).length > 0 ? secrets.encrypt(JSON.stringify(values), context(tenantId, kind, provider)) : null;
  /** Opens a row's secrets; secrets carried over by a migration are sealed again in the generic form. */
  const open = async (row: typeof providerSettings.$inferSelect): Promise<ProviderConfig> => {
    const { tenantId, kind, provider } = row;
    const opened = row.secretsSealed ? (JSON.parse(await secrets.decrypt(row.secretsSealed, context(tenantId, kind, provider))) as Record<string, string>) : {};
    if (row.legacySecrets) {
      const spec = specOf(kind, provider);
      if (!spec.legacyContext) throw new Error(`${kind} ${provider} has carried-over secrets but declares no legacyContext`);
      for (const [name, sealed] of Object.entries(row.legacySecrets)) {
        const value = await secrets.decrypt(sealed, spec.legacyContext(tenantId, name));
        if (name === '*') Object.assign(opened, JSON.parse(value) as Record<string, string>);
        else opened[name] = value;
      }
      await db
        .update(providerSettings)
        .set({ secretsSealed: seal(tenantId, kind, provider, opened), legacySecrets: null })
        .where(and(where(tenantId, kind, provider), isNotNull(providerSettings.legacySecrets)));
    }
    return { baseUrl: row.baseUrl, settings: row.settings, secrets: opened };
  };
  /** The kept settings (ProviderSpec.settings[name].kept) of a stored row. */
  const keptOf = (spec: ProviderSpec, stored: Record<string, string> | undefined): Record<string, string> =>
    Object.fromEntries(Object.entries(stored ?? {}).filter(([name]) => spec.settings[name]?.kept));
  const write = async (
    tenantId: string,
    kind: string,
    provider: string,
    values: { baseUrl: string | null; settings: Record<string, string>; secretsSealed: string | null; legacySecrets: null },
  ) => {
    const now = clock.now();
    await db
      .insert(providerSettings)
      .values({ tenantId, kind, provider, ...values, createdAt: now, updatedAt: now })
      .onConflictDoUpdate({ target: [providerSettings.tenantId, providerSettings.kind, providerSettings.provider], set: { ...values, updatedAt: now, version: sql`${providerSettings.version} + 1` } });
  };

  const api: ProviderSettings = {
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
      spec.validate?.({ baseUrl: input.baseUrl, settings: input.settings, secrets: input.secrets });
      const settings = { ...keptOf(spec, (await read(tenantId, kind, provider))?.settings), ...input.settings };
      await write(tenantId, kind, provider, { baseUrl: input.baseUrl.replace(/\/+$/, ''), settings, secretsSealed: seal(tenantId, kind, provider, input.secrets), legacySecrets: null });
      await spec.changed?.(tenantId);
    },
    async useSandbox(tenantId, kind, provider) {
      const spec = specOf(kind, provider);
      const made = spec.sandbox?.generate(tenantId) ?? { settings: {}, secrets: {} };
      const settings = { ...keptOf(spec, (await read(tenantId, kind, provider))?.settings), ...made.settings };
      await write(tenantId, kind, provider, { baseUrl: null, settings, secretsSealed: seal(tenantId, kind, provider, made.secrets), legacySecrets: null });
      await spec.changed?.(tenantId);
    },
    async update(tenantId, kind, provider, changes) {
      const spec = specOf(kind, provider);
      for (const name of Object.keys(changes)) {
        if (!(name in spec.settings)) throw new ProviderSettingsError(`${provider} takes no setting "${name}" (it takes: ${Object.keys(spec.settings).join(', ') || 'none'})`);
      }
      await api.resolve(tenantId, kind, provider);
      const set = Object.fromEntries(Object.entries(changes).filter((e): e is [string, string] => e[1] !== null));
      const removed = Object.keys(changes).filter((name) => changes[name] === null);
      const now = clock.now();
      // One statement: a concurrent configure is either before (its settings kept) or after (it replaces them).
      let merged = sql`(${providerSettings.settings} || ${JSON.stringify(set)}::jsonb)`;
      for (const name of removed) merged = sql`(${merged} - ${name}::text)`;
      const updated = await db
        .update(providerSettings)
        .set({ settings: merged, updatedAt: now, version: sql`${providerSettings.version} + 1` })
        .where(where(tenantId, kind, provider))
        .returning({ version: providerSettings.version });
      if (updated.length === 0) {
        await db.insert(providerSettings).values({ tenantId, kind, provider, baseUrl: null, settings: set, secretsSealed: null, legacySecrets: null, createdAt: now, updatedAt: now }).onConflictDoNothing();
      }
    },
    async remove(tenantId, kind, provider) {
      const spec = specOf(kind, provider);
      // The row is emptied, not deleted: its version keeps rising, so no process's cached
      // adapter (stamped with a version) can match a later row.
      const held = or(isNotNull(providerSettings.baseUrl), isNotNull(providerSettings.secretsSealed), isNotNull(providerSettings.legacySecrets), sql`${providerSettings.settings} <> '{}'::jsonb`);
      const removed = await db
        .update(providerSettings)
        .set({ baseUrl: null, settings: {}, secretsSealed: null, legacySecrets: null, updatedAt: clock.now(), version: sql`${providerSettings.version} + 1` })
        .where(and(where(tenantId, kind, provider), held))
        .returning({ kind: providerSettings.kind });
      await spec.changed?.(tenantId);
      return removed.length > 0;
    },
    async get(tenantId, kind, provider) {
      const row = await read(tenantId, kind, provider);
      return row ? open(row) : { baseUrl: null, settings: {}, secrets: {} };
    },
    async find(tenantId, kind, provider) {
      if (!UUID_RE.test(tenantId)) return undefined;
      const row = await read(tenantId, kind, provider);
      return row ? open(row) : undefined;
    },
    async resolve(tenantId, kind, provider) {
      const spec = specOf(kind, provider);
      let row = await read(tenantId, kind, provider);
      const empty = (r: typeof row) => !r || (r.baseUrl === null && r.secretsSealed === null && r.legacySecrets === null);
      if (spec.sandbox && empty(row)) {
        const made = spec.sandbox.generate(tenantId);
        const values = { baseUrl: null, settings: { ...keptOf(spec, row?.settings), ...made.settings }, secretsSealed: seal(tenantId, kind, provider, made.secrets), legacySecrets: null };
        const now = clock.now();
        if (!row) await db.insert(providerSettings).values({ tenantId, kind, provider, ...values, createdAt: now, updatedAt: now }).onConflictDoNothing();
        else
          await db
            .update(providerSettings)
            .set({ ...values, updatedAt: now, version: sql`${providerSettings.version} + 1` })
            .where(and(where(tenantId, kind, provider), isNull(providerSettings.baseUrl), isNull(providerSettings.secretsSealed), isNull(providerSettings.legacySecrets)));
        row = await read(tenantId, kind, provider);
      }
      return row ? open(row) : { baseUrl: null, settings: {}, secrets: {} };
    },
    stampRead: (on, tenantId, kind, provider) => stampTemplate(on, { tenantId, kind, provider }),
    async stamp(tenantId, kind, provider) {
      if (!UUID_RE.test(tenantId)) return { version: 0, sandbox: true };
      const [row] = await stampOf({ tenantId, kind, provider });
      return row ? { version: row.version, sandbox: row.baseUrl === null } : { version: 0, sandbox: true };
    },
    async findSandboxTenant(kind, provider, setting, value) {
      const [row] = await db
        .select({ tenantId: providerSettings.tenantId })
        .from(providerSettings)
        .where(and(eq(providerSettings.kind, kind), eq(providerSettings.provider, provider), isNull(providerSettings.baseUrl), sql`${providerSettings.settings} ->> ${setting} = ${value}`))
        .limit(1);
      return row?.tenantId;
    },
    async view(tenantId, kind, provider) {
      const spec = specOf(kind, provider);
      const row = await read(tenantId, kind, provider);
      const sandbox = !row || row.baseUrl === null;
      const hasSecrets = Boolean(row && (row.secretsSealed !== null || row.legacySecrets !== null));
      return {
        kind,
        provider,
        sandbox,
        baseUrl: sandbox ? null : row.baseUrl,
        settings: row?.settings ?? {},
        secrets: hasSecrets ? Object.keys(spec.secrets) : [],
        updatedAt: row ? row.updatedAt.toISOString() : null,
      };
    },
  };
  return api;
}
