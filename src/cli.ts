#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from './config.js';
import { createContainer, type Container } from './container.js';
import { AppError } from './platform/http/errors.js';
import { entitiesCommands, ENTITIES_USAGE } from './modules/entities/cli-commands.js';
import type { LocalBlobStore } from './providers/storage/local/store.js';
import { createStorage } from './providers/storage/select.js';
import { sweepOrphans } from './providers/storage/sweep.js';
import { SYSTEM_ACTOR } from './platform/audit/actor.js';
import { EVENT_TYPES } from './modules/events/event-types.js';
import type { EventsServices } from './modules/events/module.js';
import type { EventsService } from './modules/events/service.js';
import type { BankLinkServices } from './modules/bank-link/module.js';
import { SettingsInputError } from './modules/bank-link/settings.js';

const USAGE = `Usage: bastion <command> [options]

  tenant create --name NAME                         create a tenant and its first API key
  api-key create --tenant ID [--name LABEL]         create an API key (shown once)
  api-key revoke --tenant ID --key-id ID            revoke an API key
  user role --tenant ID --email EMAIL --role ROLE   set a user's role (admin | user)
  keys rotate                                       add a new token signing key; older keys keep
                                                    verifying until their tokens expire
  tenant set-app-url --tenant ID --url URL          where mail links open (default: Bastion's pages)
  idv configure --tenant ID --provider idv-a|idv-b --base-url URL --client-id ID --secret-file PATH
                                                    point a tenant at a real identity-verification
                                                    provider (the webhook secret is read from a file)
  idv sandbox --tenant ID --provider idv-a|idv-b    point it back at the built-in sandbox
  idp set --tenant ID --issuer URL --client-id ID (--client-secret S | --client-secret-file PATH)
          --redirect-allow URL... [--scopes "openid email profile"]
                                                    set the tenant's external OpenID provider; the
                                                    secret is stored encrypted; each allowed client
                                                    URL admits its path and the paths below it
  idp show --tenant ID                              the provider settings (secret masked) and the
                                                    callback URL to register at the provider
  idp remove --tenant ID                            remove the provider (IdP login answers 404)
${ENTITIES_USAGE}
  storage gc [--older-than HOURS] [--dry-run]       remove stored blobs older than HOURS (default
                                                    24, at least 1) that no module's rows reference;
                                                    prints the modules consulted (checkedBy)
  event-endpoint add --tenant ID --url URL [--types a,b]
                                                    add an event endpoint (its signing secret is
                                                    printed once); no --types = every type
  event-endpoint list --tenant ID                   the tenant's event endpoints
  event-endpoint remove --tenant ID --id ID         remove an endpoint and its queued deliveries
  events replay --tenant ID --endpoint ID --from ISO [--to ISO]
                                                    queue the events of a time range for the
                                                    endpoint again (same webhook-ids)
  bank-link configure --tenant ID --base-url URL --client-id ID --secret-file PATH [--environment sandbox|production]
                                                    point a tenant at a bank-link provider environment
                                                    (the secret is read from a file and stored sealed)
  bank-link sandbox --tenant ID                     back to the built-in sandbox (new test credentials)
  bank-link redirect-allow --tenant ID --redirect-allow URL...
                                                    the URLs the Link page may return to (each admits
                                                    its path and the paths below it)
  bank-link originator --tenant ID --originator-id ID
                                                    name the tenant's own originator
  bank-link show --tenant ID                        the settings (a real secret is never shown; the
                                                    built-in sandbox's test credentials are)
  migrate                                           apply database migrations and exit

Reads the same environment as the service (DATABASE_URL, DATA_DIR, MASTER_KEY, ...).
With the embedded database, stop the service first: one process opens DATA_DIR at a time.
Prints JSON on stdout; errors as JSON on stderr with a non-zero exit code.`;

class UsageError extends Error {}

type Options = Record<string, string | undefined>;
/** Options given more than once, and the words after `--redirect-allow`. */
interface Lists {
  redirectAllow: string[];
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

function olderThanHours(options: Options): number {
  const raw = options['older-than'] ?? '24';
  const hours = Number(raw);
  if (!/^\d+(\.\d+)?$/.test(raw) || hours < 1 || hours > 24 * 366) throw new UsageError('--older-than must be a number of hours from 1 to 8784');
  return hours;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
type EventTypeName = (typeof EVENT_TYPES)[number];

function eventsOf(c: Container): EventsService {
  const module = c.modules.find((m) => m.name === 'events');
  if (!module) throw new Error('the events module is not loaded');
  return (module.services as EventsServices).events;
}

function bankLinkSettings(c: Container) {
  const module = c.modules.find((m) => m.name === 'bank-link');
  if (!module) throw new Error('the bank-link module is not registered');
  return (module.services as BankLinkServices).settings;
}

/** Settings input problems are usage errors. */
async function settingsInput<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof SettingsInputError) throw new UsageError(error.message);
    throw error;
  }
}

const commands: Record<string, (c: Container, o: Options, lists: Lists) => Promise<unknown>> = {
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
    if (!user) throw new AppError(404, 'USER_NOT_FOUND', 'User not found');
    const updated = await c.users.setFields(tenantId, user.id, { role });
    return { tenantId, userId: updated.id, email: updated.email, role: updated.role };
  },
  'keys rotate': async (c) => c.keys.rotate(),
  'tenant set-app-url': async (c, o) => {
    const tenantId = need(o, 'tenant');
    const url = need(o, 'url');
    await c.tenants.setAppUrl(tenantId, url);
    return { tenantId, appUrl: url };
  },
  'idv configure': async (c, o) => {
    const tenantId = need(o, 'tenant');
    const provider = idvProvider(o);
    const baseUrl = need(o, 'base-url');
    if (!/^https?:\/\/[^\s]+$/.test(baseUrl)) throw new UsageError('--base-url must be an http(s) URL');
    const webhookSecret = readFileSync(need(o, 'secret-file'), 'utf8').trim();
    if (webhookSecret.length < 16) throw new UsageError('the secret file must hold at least 16 characters');
    if (!(await c.tenants.findTenant(tenantId))) throw new AppError(404, 'TENANT_NOT_FOUND', 'Tenant not found');
    await c.idvConfig.configure(tenantId, provider, { baseUrl, clientId: need(o, 'client-id'), webhookSecret });
    return { tenantId, provider, baseUrl, configured: true };
  },
  'idv sandbox': async (c, o) => {
    const tenantId = need(o, 'tenant');
    const provider = idvProvider(o);
    if (!(await c.tenants.findTenant(tenantId))) throw new AppError(404, 'TENANT_NOT_FOUND', 'Tenant not found');
    await c.idvConfig.configure(tenantId, provider, null);
    return { tenantId, provider, sandbox: true };
  },
  'idp set': async (c, o, lists) => {
    const tenantId = await existingTenant(c, o);
    const secretFile = o['client-secret-file'];
    const clientSecret = secretFile ? readFileSync(secretFile, 'utf8').trim() : need(o, 'client-secret');
    const redirectAllow = lists.redirectAllow;
    if (redirectAllow.length === 0) throw new UsageError('--redirect-allow needs at least one URL');
    const view = await c.idpConfig.set(tenantId, { issuer: need(o, 'issuer'), clientId: need(o, 'client-id'), clientSecret, scopes: o.scopes, redirectAllow });
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
  'bank-link configure': async (c, o) => {
    const tenantId = await existingTenant(c, o);
    const environment = o.environment ?? 'sandbox';
    if (environment !== 'sandbox' && environment !== 'production') throw new UsageError('--environment must be sandbox or production');
    const secret = readFileSync(need(o, 'secret-file'), 'utf8').trim();
    const baseUrl = need(o, 'base-url');
    await settingsInput(() => bankLinkSettings(c).configure(tenantId, { baseUrl, environment, clientId: need(o, 'client-id'), secret }));
    return { tenantId, ...(await bankLinkSettings(c).view(tenantId)) };
  },
  'bank-link sandbox': async (c, o) => {
    const tenantId = await existingTenant(c, o);
    await bankLinkSettings(c).configure(tenantId, { baseUrl: null });
    return { tenantId, ...(await bankLinkSettings(c).view(tenantId)) };
  },
  'bank-link redirect-allow': async (c, o, lists) => {
    const tenantId = await existingTenant(c, o);
    if (lists.redirectAllow.length === 0) throw new UsageError('--redirect-allow needs at least one URL');
    const redirectAllow = await settingsInput(() => bankLinkSettings(c).setRedirectAllow(tenantId, lists.redirectAllow));
    return { tenantId, redirectAllow };
  },
  'bank-link originator': async (c, o) => {
    const tenantId = await existingTenant(c, o);
    const originatorId = need(o, 'originator-id');
    if (!/^[A-Za-z0-9_-]{1,100}$/.test(originatorId)) throw new UsageError('--originator-id is not an originator client id');
    await bankLinkSettings(c).setOwnOriginator(tenantId, originatorId);
    return { tenantId, originatorClientId: originatorId };
  },
  'bank-link show': async (c, o) => {
    const tenantId = await existingTenant(c, o);
    return { tenantId, ...(await bankLinkSettings(c).view(tenantId)) };
  },
  migrate: async () => ({ migrated: true }),
  ...entitiesCommands,
};

function fail(code: number, error: string, message: string): never {
  process.stderr.write(JSON.stringify({ error, message }) + '\n');
  process.exit(code);
}

async function main(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      tenant: { type: 'string' },
      'key-id': { type: 'string' },
      email: { type: 'string' },
      role: { type: 'string' },
      url: { type: 'string' },
      provider: { type: 'string' },
      'base-url': { type: 'string' },
      'client-id': { type: 'string' },
      'secret-file': { type: 'string' },
      issuer: { type: 'string' },
      'client-secret': { type: 'string' },
      'client-secret-file': { type: 'string' },
      'redirect-allow': { type: 'string', multiple: true },
      scopes: { type: 'string' },
      'api-key-file': { type: 'string' },
      'business-id': { type: 'string' },
      status: { type: 'string' },
      'older-than': { type: 'string' },
      'dry-run': { type: 'boolean' },
      types: { type: 'string' },
      id: { type: 'string' },
      endpoint: { type: 'string' },
      from: { type: 'string' },
      to: { type: 'string' },
      environment: { type: 'string' },
      'originator-id': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const name = positionals[0] === 'migrate' ? 'migrate' : positionals.slice(0, 2).join(' ');
  const run = commands[name];
  if (values.help || !run) {
    process.stdout.write(USAGE + '\n');
    process.exit(values.help ? 0 : 2);
  }
  // `--redirect-allow A B C`: the words after the command are further URLs of that list.
  const rest = positionals.slice(name.split(' ').length);
  if (rest.length > 0 && name !== 'idp set' && name !== 'bank-link redirect-allow') throw new UsageError(`unexpected argument ${rest[0]}`);
  const { 'redirect-allow': redirectAllow = [], ...single } = values;
  // Bad arguments fail before the database is opened.
  if (name === 'storage gc') olderThanHours(single as Options);
  const config = loadConfig();
  const container = await createContainer({ config });
  try {
    const result = await run(container, single as Options, { redirectAllow: [...redirectAllow, ...rest] });
    process.stdout.write(JSON.stringify(result) + '\n');
  } finally {
    await container.close();
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof UsageError) fail(2, 'usage', error.message);
  if (error instanceof ConfigError) fail(1, 'config', error.message);
  if (error instanceof AppError) fail(error.code === 'usage' ? 2 : 1, error.code, error.message);
  if (error instanceof TypeError && 'code' in error && String((error as { code: unknown }).code).startsWith('ERR_PARSE_ARGS')) {
    fail(2, 'usage', error.message);
  }
  fail(1, 'internal', error instanceof Error ? error.message : String(error));
});
