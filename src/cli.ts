#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from './config.js';
import { createContainer, type Container } from './container.js';
import { claimDataDir, DataDirBusyError } from './platform/db/data-dir-lock.js';
import { AppError } from './platform/http/errors.js';
import { listMail, showMail } from './platform/mail/read-files.js';

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
  migrate                                           apply database migrations and exit
  mail list                                         the mail written to DATA_DIR/mail (no SMTP_URL)
  mail show ID                                      one of them as text: headers decoded, links whole

Reads the same environment as the service (DATABASE_URL, DATA_DIR, MASTER_KEY, ...).
With the embedded database, one process opens DATA_DIR at a time: while the service runs, a
command is refused (exit 1, naming the service's pid); the mail commands need no database.
Prints JSON on stdout (mail: text); errors as JSON on stderr with a non-zero exit code.`;

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

/** A secret read from a file; an unreadable file is a usage error naming the option and the file. */
function readSecretFile(option: string, path: string): string {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : code === 'EISDIR' ? 'it is a directory' : (code ?? 'unreadable');
    throw new UsageError(`--${option} ${path} cannot be read: ${why}`);
  }
}

async function existingTenant(c: Container, o: Options): Promise<string> {
  const tenantId = need(o, 'tenant');
  if (!(await c.tenants.findTenant(tenantId))) throw new AppError(404, 'TENANT_NOT_FOUND', 'Tenant not found');
  return tenantId;
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
    const webhookSecret = readSecretFile('secret-file', need(o, 'secret-file'));
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
    const clientSecret = secretFile ? readSecretFile('client-secret-file', secretFile) : need(o, 'client-secret');
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
  migrate: async () => ({ migrated: true }),
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
      help: { type: 'boolean', short: 'h' },
    },
  });
  const name = positionals[0] === 'migrate' ? 'migrate' : positionals.slice(0, 2).join(' ');
  if (values.help) {
    process.stdout.write(USAGE + '\n');
    process.exit(0);
  }
  if (name === 'mail list' || name === 'mail show') {
    await mailCommand(name, positionals.slice(2));
    return;
  }
  const run = commands[name];
  if (!run) {
    const said = positionals.length === 0 ? 'no command given' : `unknown command "${positionals.join(' ')}"`;
    process.stderr.write(`${said}\n\n${USAGE}\n`);
    process.exit(2);
  }
  // `--redirect-allow A B C`: the words after the command are further URLs of that list.
  const rest = positionals.slice(name.split(' ').length);
  if (rest.length > 0 && name !== 'idp set') throw new UsageError(`unexpected argument ${rest[0]}`);
  const { 'redirect-allow': redirectAllow = [], ...single } = values;
  const config = loadConfig();
  // The embedded database: refuse while the service (or another command) has it open.
  const release = config.databaseUrl ? () => undefined : claimDataDir(config.dataDir, 'cli');
  try {
    const container = await createContainer({ config });
    try {
      const result = await run(container, single as Options, { redirectAllow: [...redirectAllow, ...rest] });
      process.stdout.write(JSON.stringify(result) + '\n');
    } finally {
      await container.close();
    }
  } finally {
    release();
  }
}

/** `mail list` and `mail show ID`: the embedded transport's files, read as a person would. */
async function mailCommand(name: 'mail list' | 'mail show', args: string[]): Promise<void> {
  const dir = join(loadConfig().dataDir, 'mail');
  if (name === 'mail list') {
    if (args.length > 0) throw new UsageError(`unexpected argument ${args[0]}`);
    const all = await listMail(dir);
    if (all.length === 0) process.stdout.write(`no mail in ${dir}\n`);
    for (const mail of all) process.stdout.write(`${mail.id}  ${mail.to}  ${mail.subject}\n`);
    return;
  }
  if (args.length !== 1) throw new UsageError('mail show needs one message id (from mail list)');
  const text = await showMail(dir, args[0]!);
  if (text === undefined) throw new AppError(404, 'MAIL_NOT_FOUND', `no single message ${args[0]} in ${dir}`);
  process.stdout.write(text);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof UsageError) fail(2, 'usage', error.message);
  if (error instanceof ConfigError) fail(1, 'config', error.message);
  if (error instanceof AppError) fail(1, error.code, error.message);
  if (error instanceof DataDirBusyError) fail(1, 'data_dir_busy', error.message);
  if (error instanceof TypeError && 'code' in error && String((error as { code: unknown }).code).startsWith('ERR_PARSE_ARGS')) {
    fail(2, 'usage', error.message);
  }
  fail(1, 'internal', error instanceof Error ? error.message : String(error));
});
