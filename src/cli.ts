#!/usr/bin/env node
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from './config.js';
import { commands, namedPairs, readSecretFile, UsageError, type Options } from './cli-commands.js';
import { sendControlRequest } from './control-socket.js';
import { claimDataDir, DataDirBusyError } from './platform/db/data-dir-lock.js';
import { AppError } from './platform/http/errors.js';
import { ProviderError, providerErrorAnswer } from './platform/providers/errors.js';
import { listMail, showMail } from './platform/mail/read-files.js';
import { CLI_OPTIONS, USAGE } from './cli-usage.js';
import { olderThanHours } from './cli-commands.js';

function fail(code: number, error: string, message: string): never {
  process.stderr.write(JSON.stringify({ error, message }) + '\n');
  process.exit(code);
}

async function main(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: CLI_OPTIONS,
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

main(process.argv.slice(2)).catch((failure: unknown) => {
  const error = failure instanceof ProviderError ? providerErrorAnswer(failure) : failure;
  if (error instanceof UsageError) fail(2, 'usage', error.message);
  if (error instanceof ConfigError) fail(1, 'config', error.message);
  if (error instanceof AppError) fail(error.code === 'usage' ? 2 : 1, error.code, error.message);
  if (error instanceof DataDirBusyError) fail(1, 'data_dir_busy', error.message);
  if (error instanceof TypeError && 'code' in error && String((error as { code: unknown }).code).startsWith('ERR_PARSE_ARGS')) {
    fail(2, 'usage', error.message);
  }
  fail(1, 'internal', error instanceof Error ? error.message : String(error));
});
