import { isIP } from 'node:net';
import { resolve } from 'node:path';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  smtpUrl: string | undefined;
  mailFrom: string;
  publicBaseUrl: string;
  /** 32-byte key; undefined means "use the key file in DATA_DIR" (embedded default). */
  masterKey: Buffer | undefined;
  logLevel: LogLevel;
  /** Mount the built-in identity-verification sandbox and use it for tenants without a provider. */
  idvSandbox: boolean;
  /**
   * Which proxies to believe about the client address (X-Forwarded-For): false (none, the
   * default), a number of hops, or the proxies' addresses and CIDR ranges.
   */
  trustProxy: false | number | string[];
  /**
   * EVENTS_ALLOW_PRIVATE_URLS=on: event endpoints may use http and private or loopback
   * addresses (tests and development). Off by default: https to public addresses only.
   */
  eventsAllowPrivateUrls: boolean;
}

export class ConfigError extends Error {
  constructor(readonly variable: string, detail: string) {
    super(`Invalid configuration: ${variable} ${detail}`);
  }
}

type Env = Record<string, string | undefined>;

const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function optional(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function parseUrl(name: string, value: string, protocols: string[]): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(name, 'must be a valid URL');
  }
  if (!protocols.includes(url.protocol)) {
    throw new ConfigError(name, `must use one of the schemes ${protocols.join(', ')}`);
  }
  return value;
}

function parseMasterKey(value: string): Buffer {
  const key = /^[0-9a-fA-F]{64}$/.test(value) ? Buffer.from(value, 'hex') : Buffer.from(value, 'base64');
  if (key.length !== 32) {
    throw new ConfigError('MASTER_KEY', 'must be 32 bytes, as 64 hex characters or base64');
  }
  return key;
}

/** Reads and validates every environment variable once. Throws ConfigError naming the variable. */
export function loadConfig(env: Env = process.env): Config {
  const portText = optional(env, 'PORT') ?? '3000';
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || !Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError('PORT', 'must be an integer between 0 and 65535');
  }
  const host = optional(env, 'HOST') ?? '0.0.0.0';
  if (/\s/.test(host)) throw new ConfigError('HOST', 'must be a host name or address');

  const dataDir = resolve(optional(env, 'DATA_DIR') ?? './data');
  const databaseUrlRaw = optional(env, 'DATABASE_URL');
  const databaseUrl = databaseUrlRaw && parseUrl('DATABASE_URL', databaseUrlRaw, ['postgres:', 'postgresql:']);
  const redisUrlRaw = optional(env, 'REDIS_URL');
  const redisUrl = redisUrlRaw && parseUrl('REDIS_URL', redisUrlRaw, ['redis:', 'rediss:']);
  const smtpUrlRaw = optional(env, 'SMTP_URL');
  const smtpUrl = smtpUrlRaw && parseUrl('SMTP_URL', smtpUrlRaw, ['smtp:', 'smtps:']);

  const mailFrom = optional(env, 'MAIL_FROM') ?? 'Bastion <no-reply@bastion.local>';
  if (!/^[^@\s<>]+@[^@\s<>]+$/.test(mailFrom.replace(/^.*<([^>]*)>\s*$/, '$1'))) {
    throw new ConfigError('MAIL_FROM', 'must be an email address, optionally as "Name <address>"');
  }

  const publicBaseRaw = optional(env, 'PUBLIC_BASE_URL') ?? `http://localhost:${port}`;
  const publicBaseUrl = parseUrl('PUBLIC_BASE_URL', publicBaseRaw, ['http:', 'https:']).replace(/\/+$/, '');

  const masterKeyRaw = optional(env, 'MASTER_KEY');
  const masterKey = masterKeyRaw === undefined ? undefined : parseMasterKey(masterKeyRaw);
  if (masterKey === undefined && databaseUrl !== undefined && env.NODE_ENV === 'production') {
    throw new ConfigError('MASTER_KEY', 'is required in production when DATABASE_URL is set');
  }

  const logLevel = (optional(env, 'LOG_LEVEL') ?? 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}`);
  }

  const idvSandboxRaw = (optional(env, 'IDV_SANDBOX') ?? 'on').toLowerCase();
  if (!['on', 'off', 'true', 'false'].includes(idvSandboxRaw)) throw new ConfigError('IDV_SANDBOX', 'must be on or off');
  const idvSandbox = idvSandboxRaw === 'on' || idvSandboxRaw === 'true';

  const trustProxy = parseTrustProxy(optional(env, 'TRUST_PROXY'));

  const privateUrlsRaw = (optional(env, 'EVENTS_ALLOW_PRIVATE_URLS') ?? 'off').toLowerCase();
  if (!['on', 'off', 'true', 'false'].includes(privateUrlsRaw)) throw new ConfigError('EVENTS_ALLOW_PRIVATE_URLS', 'must be on or off');
  const eventsAllowPrivateUrls = privateUrlsRaw === 'on' || privateUrlsRaw === 'true';

  return { port, host, dataDir, databaseUrl, redisUrl, smtpUrl, mailFrom, publicBaseUrl, masterKey, logLevel, idvSandbox, trustProxy, eventsAllowPrivateUrls };
}

/**
 * TRUST_PROXY: `off` (default), a hop count (`1` behind one load balancer), or a comma list of
 * proxy addresses / CIDR ranges. "Trust everything" is refused: any client could then choose
 * its own address and walk around the per-address limits.
 */
function parseTrustProxy(raw: string | undefined): false | number | string[] {
  if (raw === undefined || ['off', 'false', '0'].includes(raw.toLowerCase())) return false;
  if (/^\d+$/.test(raw)) {
    const hops = Number(raw);
    if (hops > 10) throw new ConfigError('TRUST_PROXY', 'hop count must be at most 10');
    return hops;
  }
  const entries = raw.split(',').map((entry) => entry.trim()).filter(Boolean);
  const valid = (entry: string) => {
    const [address = '', bits, extra] = entry.split('/');
    const family = isIP(address);
    if (!family || extra !== undefined) return false;
    if (bits === undefined) return true;
    return /^\d+$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128);
  };
  if (entries.length === 0 || !entries.every(valid)) {
    throw new ConfigError('TRUST_PROXY', 'must be off, a hop count, or a comma list of proxy addresses or CIDR ranges');
  }
  return entries;
}
