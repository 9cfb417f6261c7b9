import { parseKeyText } from './config.js';
import { commitPendingMasterKey, discardPendingMasterKey, masterKeyFile, resolveMasterKey, writePendingMasterKey } from './platform/crypto/secrets.js';
import type { Container } from './container.js';
import { namedPairs, olderThanHours, readSecretFile, UsageError, type CommandName, type Lists, type Options } from './cli-args.js';
import { AppError } from './platform/http/errors.js';
import { UserErrors } from './modules/users/errors.js';
import { BANK_LINK, bankLinkView, businessProfileCommands } from './cli-provider-aliases.js';
import type { LocalBlobStore } from './providers/storage/local/store.js';
import { createStorage } from './providers/storage/select.js';
import { sweepOrphans } from './providers/storage/sweep.js';
import { SYSTEM_ACTOR } from './platform/audit/actor.js';
import { EVENT_TYPES } from './modules/events/event-types.js';
import type { EventsServices } from './modules/events/module.js';
import type { EventsService } from './modules/events/service.js';
import { ProviderSettingsError } from './platform/provider-settings/settings.js';
import { OWN_ORIGINATOR_SETTING, REDIRECT_ALLOW_SETTING } from './providers/bank-link/port.js';
import { redirectAllowOf, redirectAllowSetting } from './providers/bank-link/plaid/index.js';

export { namedPairs, olderThanHours, readSecretFile, UsageError, type Lists, type Options } from './cli-args.js';

/** Provider settings input problems are usage errors. */
async function providerInput<T>(work: () => Promise<T> | T): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ProviderSettingsError) throw new UsageError(error.message);
    throw error;
  }
}

function need(options: Options, name: string): string {
  const value = options[name];
  if (!value) throw new UsageError(`--${name} is required`);
  return value;
}

function idvProvider(options: Options): 'idv-a' | 'idv-b' {
  const provider = need(options, 'provider');
  if (provider !== 'idv-a' && provider !== 'idv-b') throw new UsageError('--provider must be idv-a or idv-b');
  return provider;
}


async function existingTenant(c: Container, o: Options): Promise<string> {
  const tenantId = need(o, 'tenant');
  if (!(await c.tenants.findTenant(tenantId))) throw new AppError(404, 'TENANT_NOT_FOUND', 'Tenant not found');
  return tenantId;
}


const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
type EventTypeName = (typeof EVENT_TYPES)[number];

function eventsOf(c: Container): EventsService {
  const module = c.modules.find((m) => m.name === 'events');
  if (!module) throw new Error('the events module is not loaded');
  return (module.services as EventsServices).events;
}

type Command = (c: Container, o: Options, lists: Lists) => Promise<unknown>;

/**
 * The operator commands, run by the CLI in its own process (PostgreSQL, or the embedded
 * database when no service holds it) or by the running service for a CLI on its control
 * socket (control-socket.ts). Options arrive parsed; secret files are read by the CLI.
 * Exactly the names of COMMAND_NAMES (cli-args.ts), which the CLI checks without loading this.
 */
const implemented = {
  'tenant create': async (c, o) => {
    const created = await c.tenants.createTenant(need(o, 'name'));
    return { tenantId: created.tenantId, apiKey: created.apiKey, keyId: created.keyId };
  },
  'api-key create': async (c, o) => {
    const tenantId = need(o, 'tenant');
    const key = await c.tenants.createApiKey(tenantId, o.name);
    return { tenantId, keyId: key.keyId, apiKey: key.apiKey };
  },
  'api-key revoke': async (c, o) => {
    const tenantId = need(o, 'tenant');
    const keyId = need(o, 'key-id');
    await c.tenants.revokeApiKey(tenantId, keyId);
    return { tenantId, keyId, revoked: true };
  },
  'user role': async (c, o) => {
    const tenantId = need(o, 'tenant');
    const role = need(o, 'role');
    if (role !== 'admin' && role !== 'user') throw new UsageError('--role must be admin or user');
    const user = await c.users.findRowByEmail(tenantId, need(o, 'email'));
    if (!user) throw UserErrors.notFound();
    const updated = await c.users.setFields(tenantId, user.id, { role });
    return { tenantId, userId: updated.id, email: updated.email, role: updated.role };
  },
  'keys rotate': async (c) => c.keys.rotate(),
  'keys rotate-master': async (c, o) => {
    const file = need(o, 'new-key-file');
    const newKey = parseKeyText(o['new-key-file-content'] ?? readSecretFile('new-key-file', file));
    if (!newKey) throw new UsageError(`--new-key-file ${file} must hold a 32-byte key, as 64 hex characters or base64 (e.g. openssl rand -hex 32)`);
    const { dataDir, masterKey: fromEnv } = c.config;
    if (newKey.equals(resolveMasterKey(fromEnv, dataDir))) throw new UsageError('--new-key-file holds the current master key: nothing to rotate');
    if (fromEnv) {
      const { dataKeys } = await c.secrets.rotateMasterKey(newKey);
      return { rotated: true, dataKeys, masterKey: 'MASTER_KEY', next: 'set MASTER_KEY to the new key on every instance, then restart them; until then a restart with the old key fails naming MASTER_KEY' };
    }
    // The key file: the new key is on disk before the commit and replaces the old after it, so
    // no moment has a committed rotation without its key in DATA_DIR.
    writePendingMasterKey(dataDir, newKey);
    let dataKeys: number;
    try {
      ({ dataKeys } = await c.secrets.rotateMasterKey(newKey));
    } catch (error) {
      discardPendingMasterKey(dataDir);
      throw error;
    }
    commitPendingMasterKey(dataDir);
    return { rotated: true, dataKeys, masterKey: masterKeyFile(dataDir) };
  },
  'tenant set-app-url': async (c, o) => {
    const tenantId = need(o, 'tenant');
    const url = need(o, 'url');
    await c.tenants.setAppUrl(tenantId, url);
    return { tenantId, appUrl: url };
  },
  'tenant cors-origins': async (c, o) => {
    const tenantId = need(o, 'tenant');
    return { tenantId, ...(await c.tenants.corsOrigins(tenantId)) };
  },
  'tenant set-cors-origins': async (c, o) => {
    const tenantId = need(o, 'tenant');
    if (o.origins === undefined) throw new UsageError('--origins is required (a comma-separated list, "default" or "")');
    const given = o.origins.trim();
    const origins = given === 'default' ? null : given === '' ? [] : given.split(',');
    return { tenantId, ...(await c.tenants.setCorsOrigins(tenantId, origins)) };
  },
  'idv configure': async (c, o) => {
    const tenantId = need(o, 'tenant');
    const provider = idvProvider(o);
    const baseUrl = need(o, 'base-url');
    if (!/^https?:\/\/[^\s]+$/.test(baseUrl)) throw new UsageError('--base-url must be an http(s) URL');
    const webhookSecret = o['secret-file-content'] ?? readSecretFile('secret-file', need(o, 'secret-file'));
    if (webhookSecret.length < 16) throw new UsageError('the secret file must hold at least 16 characters');
    if (!(await c.tenants.findTenant(tenantId))) throw new AppError(404, 'TENANT_NOT_FOUND', 'Tenant not found');
    // The README's alias of `provider configure --kind idv --provider <name> --setting client-id=ID --secret webhook-secret=PATH`.
    await providerInput(() =>
      c.platform.providerSettings.configure(tenantId, 'idv', provider, { baseUrl, settings: { 'client-id': need(o, 'client-id') }, secrets: { 'webhook-secret': webhookSecret } }),
    );
    return { tenantId, provider, baseUrl, configured: true };
  },
  'idv sandbox': async (c, o) => {
    const tenantId = need(o, 'tenant');
    const provider = idvProvider(o);
    if (!(await c.tenants.findTenant(tenantId))) throw new AppError(404, 'TENANT_NOT_FOUND', 'Tenant not found');
    // The README's alias of `provider sandbox --kind idv --provider <name>` (a fresh sandbox secret).
    await providerInput(() => c.platform.providerSettings.useSandbox(tenantId, 'idv', provider));
    return { tenantId, provider, sandbox: true };
  },
  'idp set': async (c, o, lists) => {
    const tenantId = await existingTenant(c, o);
    const secretFile = o['client-secret-file'];
    const clientSecret = secretFile ? (o['client-secret-file-content'] ?? readSecretFile('client-secret-file', secretFile)) : need(o, 'client-secret');
    const redirectAllow = lists.redirectAllow;
    if (redirectAllow.length === 0) throw new UsageError('--redirect-allow needs at least one URL');
    // The alias of `provider configure --kind idp --provider oidc` (the README promises it).
    const view = await providerInput(() => c.idpConfig.set(tenantId, { issuer: need(o, 'issuer'), clientId: need(o, 'client-id'), clientSecret, scopes: o.scopes, redirectAllow }));
    return { tenantId, ...view };
  },
  'idp show': async (c, o) => {
    const tenantId = await existingTenant(c, o);
    return { tenantId, ...(await c.idpConfig.view(tenantId)) };
  },
  'idp remove': async (c, o) => {
    const tenantId = await existingTenant(c, o);
    return { tenantId, removed: await c.idpConfig.remove(tenantId) };
  },
  'storage gc': async (c, o) => {
    const hours = olderThanHours(o);
    const store = createStorage(c.config);
    // Explicit: the modules that keep blob keys say which blobs are theirs; with none, none is.
    const references = c.modules.flatMap((m) => (m.referencesBlob ? [{ name: m.name, isReferenced: m.referencesBlob }] : []));
    const result = await sweepOrphans(store, { olderThanMs: hours * 3_600_000, references, dryRun: Boolean(o['dry-run']) });
    const tempRemoved = 'removeStaleTemp' in store ? await (store as LocalBlobStore).removeStaleTemp(new Date(Date.now() - hours * 3_600_000)) : 0;
    return { store: store.kind, olderThanHours: hours, ...result, tempRemoved };
  },
  'event-endpoint add': async (c, o) => {
    const tenantId = await existingTenant(c, o);
    const types = o.types ? o.types.split(',').map((t) => t.trim()).filter(Boolean) : undefined;
    if (types?.some((t) => !(EVENT_TYPES as readonly string[]).includes(t))) throw new UsageError(`--types must be among ${EVENT_TYPES.join(', ')}`);
    const created = await eventsOf(c).create(tenantId, { url: need(o, 'url'), types: types as EventTypeName[] | undefined }, SYSTEM_ACTOR);
    return { tenantId, ...created };
  },
  'event-endpoint list': async (c, o) => {
    const tenantId = await existingTenant(c, o);
    return { tenantId, ...(await eventsOf(c).list(tenantId, { limit: 100, offset: 0 })) };
  },
  'event-endpoint remove': async (c, o) => {
    const tenantId = await existingTenant(c, o);
    const id = need(o, 'id');
    if (!UUID_RE.test(id)) throw new UsageError('--id must be an endpoint id (a UUID)');
    await eventsOf(c).remove(tenantId, id, SYSTEM_ACTOR);
    return { tenantId, id, removed: true };
  },
  'event-endpoint rotate-secret': async (c, o) => {
    const tenantId = await existingTenant(c, o);
    const id = need(o, 'id');
    if (!UUID_RE.test(id)) throw new UsageError('--id must be an endpoint id (a UUID)');
    return { tenantId, id, ...(await eventsOf(c).rotateSecret(tenantId, id, SYSTEM_ACTOR)) };
  },
  'events replay': async (c, o) => {
    const tenantId = await existingTenant(c, o);
    const endpointId = need(o, 'endpoint');
    if (!UUID_RE.test(endpointId)) throw new UsageError('--endpoint must be an endpoint id (a UUID)');
    const iso = (name: string, value: string) => {
      if (Number.isNaN(Date.parse(value))) throw new UsageError(`--${name} must be an ISO 8601 time`);
      return new Date(value).toISOString();
    };
    const from = iso('from', need(o, 'from'));
    const to = o.to ? iso('to', o.to) : undefined;
    return { tenantId, endpointId, ...(await eventsOf(c).replay(tenantId, endpointId, { from, to }, SYSTEM_ACTOR)) };
  },
  'provider list': async (c) =>
    c.platform.providerSettings.specs().map((s) => ({
      kind: s.kind,
      provider: s.provider,
      description: s.description,
      settings: Object.fromEntries(Object.entries(s.settings).map(([k, v]) => [k, `${v.required ? 'required' : 'optional'}: ${v.description}`])),
      secrets: Object.fromEntries(Object.entries(s.secrets).map(([k, v]) => [k, `${v.required ? 'required' : 'optional'}: ${v.description}`])),
    })),
  'provider configure': async (c, o, lists) => {
    const tenantId = await existingTenant(c, o);
    const kind = need(o, 'kind');
    const provider = need(o, 'provider');
    const settings = namedPairs('setting', lists.settings ?? []);
    const secrets =
      lists.secretContents ??
      Object.fromEntries(Object.entries(namedPairs('secret', lists.secrets ?? [])).map(([name, path]) => [name, readSecretFile(`secret ${name}`, path)]));
    await providerInput(() => c.platform.providerSettings.configure(tenantId, kind, provider, { baseUrl: need(o, 'base-url'), settings, secrets }));
    return { tenantId, ...(await c.platform.providerSettings.view(tenantId, kind, provider)) };
  },
  'provider sandbox': async (c, o) => {
    const tenantId = await existingTenant(c, o);
    const kind = need(o, 'kind');
    const provider = need(o, 'provider');
    await providerInput(() => c.platform.providerSettings.useSandbox(tenantId, kind, provider));
    return { tenantId, ...(await c.platform.providerSettings.view(tenantId, kind, provider)) };
  },
  'provider remove': async (c, o) => {
    const tenantId = await existingTenant(c, o);
    const kind = need(o, 'kind');
    const provider = need(o, 'provider');
    const removed = await providerInput(() => c.platform.providerSettings.remove(tenantId, kind, provider));
    return { tenantId, removed, ...(await c.platform.providerSettings.view(tenantId, kind, provider)) };
  },
  'provider show': async (c, o) => {
    const tenantId = await existingTenant(c, o);
    return { tenantId, ...(await providerInput(() => c.platform.providerSettings.view(tenantId, need(o, 'kind'), need(o, 'provider')))) };
  },
  // The aliases the README promises (bank-link, plaid): the same provider settings as `provider configure|sandbox|show`.
  'bank-link configure': async (c, o) => {
    const tenantId = await existingTenant(c, o);
    const environment = o.environment ?? 'sandbox';
    if (environment !== 'sandbox' && environment !== 'production') throw new UsageError('--environment must be sandbox or production');
    const secret = o['secret-file-content'] ?? readSecretFile('secret-file', need(o, 'secret-file'));
    const baseUrl = need(o, 'base-url');
    if (!/^https?:\/\/[^\s]+$/.test(baseUrl)) throw new UsageError('--base-url must be an http(s) URL');
    const settings = { 'client-id': need(o, 'client-id'), environment };
    await providerInput(() => c.platform.providerSettings.configure(tenantId, ...BANK_LINK, { baseUrl, settings, secrets: { secret } }));
    return { tenantId, ...(await bankLinkView(c, tenantId)) };
  },
  'bank-link sandbox': async (c, o) => {
    const tenantId = await existingTenant(c, o);
    await c.platform.providerSettings.useSandbox(tenantId, ...BANK_LINK);
    return { tenantId, ...(await bankLinkView(c, tenantId)) };
  },
  'bank-link redirect-allow': async (c, o, lists) => {
    const tenantId = await existingTenant(c, o);
    if (lists.redirectAllow.length === 0) throw new UsageError('--redirect-allow needs at least one URL');
    const value = await providerInput(() => redirectAllowSetting(lists.redirectAllow));
    await c.platform.providerSettings.update(tenantId, ...BANK_LINK, { [REDIRECT_ALLOW_SETTING]: value });
    return { tenantId, redirectAllow: redirectAllowOf({ [REDIRECT_ALLOW_SETTING]: value }) };
  },
  'bank-link originator': async (c, o) => {
    const tenantId = await existingTenant(c, o);
    const originatorId = need(o, 'originator-id');
    if (!/^[A-Za-z0-9_-]{1,100}$/.test(originatorId)) throw new UsageError('--originator-id is not an originator client id');
    await c.platform.providerSettings.update(tenantId, ...BANK_LINK, { [OWN_ORIGINATOR_SETTING]: originatorId });
    return { tenantId, originatorClientId: originatorId };
  },
  'bank-link show': async (c, o) => {
    const tenantId = await existingTenant(c, o);
    return { tenantId, ...(await bankLinkView(c, tenantId)) };
  },
  migrate: async () => ({ migrated: true }),
  ...businessProfileCommands,
} satisfies Record<CommandName, Command>;

// Both ways: no command without its name in COMMAND_NAMES (a name without a command fails `satisfies`).
const onlyNamed: [Exclude<keyof typeof implemented, CommandName>] extends [never] ? true : never = true;
void onlyNamed;

export const commands: Record<string, Command> = implemented;

