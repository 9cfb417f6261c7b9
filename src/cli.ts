#!/usr/bin/env node
import { realpathSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from './config.js';
import { isCommandName, namedPairs, olderThanHours, readSecretFile, UsageError, type Options } from './cli-args.js';
import { sendControlRequest } from './control-client.js';
import { claimDataDir, DataDirBusyError } from './platform/db/data-dir-lock.js';
import { AppError } from './platform/http/errors.js';
import { ProviderError, providerErrorAnswer } from './platform/providers/errors.js';
import { CLI_OPTIONS, USAGE } from './cli-usage.js';

/** Where the CLI reads its settings and writes its output: the process's own, or a test's. */
export interface CliIo {
  env: Record<string, string | undefined>;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

/** A failure the CLI reports as `{"error","message"}` on stderr with this exit code. */
class CliExit extends Error {
  constructor(
    readonly exitCode: number,
    readonly error: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The whole CLI: parses argv, runs the command, writes its output, returns the exit code.
 * The binary (below) is a thin wrapper; tests call this in process with their own env.
 */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  try {
    return await main(argv, io);
  } catch (error: unknown) {
    const [code, name, message] = failure(error);
    io.stderr(JSON.stringify({ error: name, message }) + '\n');
    return code;
  }
}

function failure(failed: unknown): [number, string, string] {
  const error = failed instanceof ProviderError ? providerErrorAnswer(failed) : failed;
  if (error instanceof CliExit) return [error.exitCode, error.error, error.message];
  if (error instanceof UsageError) return [2, 'usage', error.message];
  if (error instanceof ConfigError) return [1, 'config', error.message];
  if (error instanceof AppError) return [error.code === 'usage' ? 2 : 1, error.code, error.message];
  if (error instanceof DataDirBusyError) return [1, 'data_dir_busy', error.message];
  if (error instanceof TypeError && 'code' in error && String((error as { code: unknown }).code).startsWith('ERR_PARSE_ARGS')) {
    return [2, 'usage', error.message];
  }
  return [1, 'internal', error instanceof Error ? error.message : String(error)];
}

async function main(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: CLI_OPTIONS,
  });
  const name = positionals[0] === 'migrate' ? 'migrate' : positionals.slice(0, 2).join(' ');
  if (values.help) {
    io.stdout(USAGE + '\n');
    return 0;
  }
  if (name === 'mail list' || name === 'mail show') {
    await mailCommand(name, positionals.slice(2), io);
    return 0;
  }
  if (!isCommandName(name)) {
    const said = positionals.length === 0 ? 'no command given' : `unknown command "${positionals.join(' ')}"`;
    io.stderr(`${said}\n\n${USAGE}\n`);
    return 2;
  }
  // `--redirect-allow A B C`: the words after the command are further URLs of that list.
  const rest = positionals.slice(name.split(' ').length);
  if (rest.length > 0 && name !== 'idp set' && name !== 'bank-link redirect-allow') throw new UsageError(`unexpected argument ${rest[0]}`);
  const { 'redirect-allow': redirectAllow = [], setting: settings = [], secret: secrets = [], ...single } = values;
  const options = single as Options;
  // Secret files are read here, by the operator: the command may run in the service.
  for (const option of ['secret-file', 'client-secret-file', 'api-key-file', 'new-key-file']) {
    const path = options[option];
    if (path) options[`${option}-content`] = readSecretFile(option, path);
  }
  const secretContents = Object.fromEntries(Object.entries(namedPairs('secret', secrets)).map(([key, path]) => [key, readSecretFile(`secret ${key}`, path)]));
  const lists = { redirectAllow: [...redirectAllow, ...rest], settings, secrets, secretContents };
  // Bad arguments fail before the database is opened.
  if (name === 'storage gc') olderThanHours(options);
  const config = loadConfig(io.env);
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
      if (!answer.ok) throw new CliExit(answer.exitCode, answer.error, answer.message);
      io.stdout(JSON.stringify(answer.result) + '\n');
      return 0;
    }
  }
  try {
    // Loaded here only: the commands and the container bring in every module and provider
    // (seconds of start-up that `mail`, `--help` and the commands the service runs for the CLI
    // do not need).
    const [{ createContainer }, { commands }] = await Promise.all([import('./container.js'), import('./cli-commands.js')]);
    const run = commands[name]!;
    const container = await createContainer({ config });
    try {
      const result = await run(container, options, lists);
      io.stdout(JSON.stringify(result) + '\n');
      return 0;
    } finally {
      await container.close();
    }
  } finally {
    release();
  }
}

/** `mail list` and `mail show ID`: the embedded transport's files, read as a person would. */
async function mailCommand(name: 'mail list' | 'mail show', args: string[], io: CliIo): Promise<void> {
  const dir = join(loadConfig(io.env).dataDir, 'mail');
  const { listMail, showMail } = await import('./platform/mail/read-files.js');
  if (name === 'mail list') {
    if (args.length > 0) throw new UsageError(`unexpected argument ${args[0]}`);
    const all = await listMail(dir);
    if (all.length === 0) io.stdout(`no mail in ${dir}\n`);
    for (const mail of all) io.stdout(`${mail.id}  ${mail.to}  ${mail.subject}\n`);
    return;
  }
  if (args.length !== 1) throw new UsageError('mail show needs one message id (from mail list)');
  const text = await showMail(dir, args[0]!);
  if (text === undefined) throw new AppError(404, 'MAIL_NOT_FOUND', `no single message ${args[0]} in ${dir}`);
  io.stdout(text);
}

/** Run as the binary (`bastion`, `npm run cli`), not imported by a test. */
function isEntryPoint(): boolean {
  const script = process.argv[1];
  if (!script) return false;
  try {
    return import.meta.url === pathToFileURL(realpathSync(script)).href;
  } catch {
    return false;
  }
}

if (isEntryPoint()) {
  const code = await runCli(process.argv.slice(2), {
    env: process.env,
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
  });
  // A failure ends at once (as before: a handle left open must not hold the operator's shell).
  if (code !== 0) process.exit(code);
}
