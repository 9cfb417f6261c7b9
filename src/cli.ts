#!/usr/bin/env node
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from './config.js';
import { commands, namedPairs, readSecretFile, UsageError, type Options } from './cli-commands.js';
import { sendControlRequest } from './control-socket.js';
import { claimDataDir, DataDirBusyError } from './platform/db/data-dir-lock.js';
import { AppError } from './platform/http/errors.js';
import { listMail, showMail } from './platform/mail/read-files.js';
import { ENTITIES_USAGE } from './modules/entities/cli-commands.js';
import { olderThanHours } from './cli-commands.js';

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
                                                    provider (the webhook secret is read from a file);
                                                    alias of provider configure --kind idv
                                                    --setting client-id=ID --secret webhook-secret=PATH
  idv sandbox --tenant ID --provider idv-a|idv-b    point it back at the built-in sandbox (alias of
                                                    provider sandbox --kind idv)
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
  provider list                                     the providers a tenant can point at a real
                                                    service, with their settings and secrets
  provider configure --tenant ID --kind KIND --provider NAME --base-url URL
          [--setting NAME=VALUE]... [--secret NAME=PATH]...
                                                    point a tenant at a real provider (each secret
                                                    is read from a file and stored sealed)
  provider sandbox --tenant ID --kind KIND --provider NAME
                                                    back to the built-in sandbox
  provider show --tenant ID --kind KIND --provider NAME
                                                    the settings (secrets named, never shown)
  bank-link configure --tenant ID --base-url URL --client-id ID --secret-file PATH [--environment sandbox|production]
                                                    point a tenant at a bank-link provider environment
                                                    (the secret is read from a file and stored sealed);
                                                    alias of provider configure --kind bank-link
                                                    --provider plaid --setting client-id=ID
                                                    [--setting environment=E] --secret secret=PATH
  bank-link sandbox --tenant ID                     back to the built-in sandbox (new test credentials)
  bank-link redirect-allow --tenant ID --redirect-allow URL...
                                                    the URLs the Link page may return to (each admits
                                                    its path and the paths below it)
  bank-link originator --tenant ID --originator-id ID
                                                    name the tenant's own originator
  bank-link show --tenant ID                        the settings (a real secret is never shown; the
                                                    built-in sandbox's test credentials are)
  migrate                                           apply database migrations and exit
  mail list                                         the mail written to DATA_DIR/mail (no SMTP_URL)
  mail show ID                                      one of them as text: headers decoded, links whole

Reads the same environment as the service (DATABASE_URL, DATA_DIR, MASTER_KEY, ...).
With the embedded database, one process opens DATA_DIR at a time: while the service runs, the
command is sent to it (DATA_DIR/bastion.sock) and runs there; while another command runs, it
is refused (exit 1, naming that process). The mail commands need no database.
Prints JSON on stdout (mail: text); errors as JSON on stderr with a non-zero exit code.`;

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
      kind: { type: 'string' },
      setting: { type: 'string', multiple: true },
      secret: { type: 'string', multiple: true },
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
  if (rest.length > 0 && name !== 'idp set' && name !== 'bank-link redirect-allow') throw new UsageError(`unexpected argument ${rest[0]}`);
  const { 'redirect-allow': redirectAllow = [], setting: settings = [], secret: secrets = [], ...single } = values;
  const options = single as Options;
  // Secret files are read here, by the operator: the command may run in the service.
  for (const option of ['secret-file', 'client-secret-file', 'api-key-file']) {
    const path = options[option];
    if (path) options[`${option}-content`] = readSecretFile(option, path);
  }
  const secretContents = Object.fromEntries(Object.entries(namedPairs('secret', secrets)).map(([key, path]) => [key, readSecretFile(`secret ${key}`, path)]));
  const lists = { redirectAllow: [...redirectAllow, ...rest], settings, secrets, secretContents };
  // Bad arguments fail before the database is opened.
  if (name === 'storage gc') olderThanHours(options);
  const config = loadConfig();
  // The embedded database admits one process: while the service holds it, the service runs
  // the command (control socket); while another command holds it, refuse.
  let release: () => void = () => undefined;
  if (!config.databaseUrl) {
    try {
      release = claimDataDir(config.dataDir, 'cli');
    } catch (error) {
      if (!(error instanceof DataDirBusyError) || error.holder.role !== 'service') throw error;
      const answer = await sendControlRequest(config.dataDir, { command: name, options, lists });
      if (!answer) throw error;
      if (!answer.ok) fail(answer.exitCode, answer.error, answer.message);
      process.stdout.write(JSON.stringify(answer.result) + '\n');
      return;
    }
  }
  try {
    // Loaded here only: the container brings in every module and provider (seconds of start-up
    // that `mail` and the commands the service runs for the CLI do not need).
    const { createContainer } = await import('./container.js');
    const container = await createContainer({ config });
    try {
      const result = await run(container, options, lists);
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
  if (error instanceof AppError) fail(error.code === 'usage' ? 2 : 1, error.code, error.message);
  if (error instanceof DataDirBusyError) fail(1, 'data_dir_busy', error.message);
  if (error instanceof TypeError && 'code' in error && String((error as { code: unknown }).code).startsWith('ERR_PARSE_ARGS')) {
    fail(2, 'usage', error.message);
  }
  fail(1, 'internal', error instanceof Error ? error.message : String(error));
});
