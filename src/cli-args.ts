import { readFileSync } from 'node:fs';

/**
 * What the CLI needs before it knows where a command runs (this process, or the service on
 * its control socket): the command names, argument helpers and the usage error. Kept apart
 * from cli-commands.ts, which brings in the container's modules and providers: a CLI whose
 * command the running service answers never loads them.
 */
export class UsageError extends Error {}

export type Options = Record<string, string | undefined>;
/** Options given more than once, and the words after `--redirect-allow`. */
export interface Lists {
  redirectAllow: string[];
  /** `--setting NAME=VALUE`, given once per setting (provider configure). */
  settings?: string[];
  /** `--secret NAME=PATH`, given once per secret (provider configure). */
  secrets?: string[];
  /** The secret files' contents by NAME, read by the CLI (the command may run in the service). */
  secretContents?: Record<string, string>;
}

/** `NAME=VALUE` pairs into a record; a pair without `=` or a name given twice is a usage error. */
export function namedPairs(option: string, pairs: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new UsageError(`--${option} takes NAME=VALUE, got "${pair}"`);
    const name = pair.slice(0, at);
    if (name in out) throw new UsageError(`--${option} ${name} is given twice`);
    out[name] = pair.slice(at + 1);
  }
  return out;
}

/** A secret read from a file; an unreadable file is a usage error naming the option and the file. */
export function readSecretFile(option: string, path: string): string {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : code === 'EISDIR' ? 'it is a directory' : (code ?? 'unreadable');
    throw new UsageError(`--${option} ${path} cannot be read: ${why}`);
  }
}

export function olderThanHours(options: Options): number {
  const raw = options['older-than'] ?? '24';
  const hours = Number(raw);
  if (!/^\d+(\.\d+)?$/.test(raw) || hours < 1 || hours > 24 * 366) throw new UsageError('--older-than must be a number of hours from 1 to 8784');
  return hours;
}

/** Every command the CLI knows (cli-commands.ts implements exactly these: the compiler checks). */
export const COMMAND_NAMES = [
  'tenant create',
  'api-key create',
  'api-key revoke',
  'user role',
  'keys rotate',
  'keys rotate-master',
  'tenant set-app-url',
  'tenant cors-origins',
  'tenant set-cors-origins',
  'idv configure',
  'idv sandbox',
  'idp set',
  'idp show',
  'idp remove',
  'storage gc',
  'event-endpoint add',
  'event-endpoint list',
  'event-endpoint remove',
  'event-endpoint rotate-secret',
  'events replay',
  'provider list',
  'provider configure',
  'provider sandbox',
  'provider remove',
  'provider show',
  'bank-link configure',
  'bank-link sandbox',
  'bank-link redirect-allow',
  'bank-link originator',
  'bank-link show',
  'business-profile configure',
  'business-profile sandbox',
  'business-profile show',
  'business-profile review',
  'migrate',
] as const;

export type CommandName = (typeof COMMAND_NAMES)[number];

export function isCommandName(name: string): name is CommandName {
  return (COMMAND_NAMES as readonly string[]).includes(name);
}
