import { isIP } from 'node:net';
import { resolve } from 'node:path';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface Config {
  port: number;
  /** HOST; default 127.0.0.1 while sandboxes are served outside production, else 0.0.0.0. */
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  smtpUrl: string | undefined;
  mailFrom: string;
  publicBaseUrl: string;
  /**
   * TOKEN_ISSUER: the `iss` of the access tokens this service signs and accepts; default
   * PUBLIC_BASE_URL. Every instance sharing a database must have the same (docs/operations.md).
   */
  tokenIssuer: string;
  /** 32-byte key; undefined means "use the key file in DATA_DIR" (embedded default). */
  masterKey: Buffer | undefined;
  logLevel: LogLevel;
  /**
   * Serve the built-in provider sandboxes (every sandbox, present and future, checks this).
   * On by default, except under NODE_ENV=production, where only SANDBOXES=on turns them on.
   */
  sandboxes: boolean;
  /** NODE_ENV=production. */
  production: boolean;
  /** Mount the built-in identity-verification sandbox and use it for tenants without a provider. */
  idvSandbox: boolean;
  /**
   * Which proxies to believe about the client address (X-Forwarded-For): false (none, the
   * default), a number of hops, or the proxies' addresses and CIDR ranges.
   */
  trustProxy: false | number | string[];
  /** S3-compatible blob storage (S3_BUCKET set); undefined: blobs under DATA_DIR/blobs. */
  s3: S3Config | undefined;
  /**
   * The EVM chain: JSON-RPC over HTTP(S) when `rpcUrl` is set (then `chainId` is required and
   * checked against the node); otherwise a local in-process chain (EDR) with this chain id.
   */
  evm: { rpcUrl: string | undefined; chainId: number };
  /**
   * Where the local chains listen, while sandboxes are on and no EVM_RPC_URL / XRPL_URL is set:
   * the local EVM chain's JSON-RPC (EVM_LOCAL_RPC_PORT, default 8545, `off`: not served) and the
   * XRPL stand-in's WebSocket and faucet (XRPL_LOCAL_PORT, default 6006), both on
   * LOCAL_CHAINS_HOST (default 127.0.0.1). Port 0: a random free port (tests).
   */
  localChains: { host: string; evmRpcPort: number | undefined; xrplPort: number };
  /**
   * Prometheus metrics (GET /metrics) on their own listener, never on the API's port:
   * METRICS_PORT (unset or `off`: not served; 0: a random free port), METRICS_HOST (default
   * 127.0.0.1). Tenants never reach it; an operator's scraper does.
   */
  metrics: { port: number | undefined; host: string };
  /** XRPL_URL: rippled WebSocket (ws:/wss:); undefined = the in-process ledger stand-in. */
  xrplUrl: string | undefined;
  /** XRPL_FAUCET_URL: a test network's faucet (POST {destination, xrpAmount}); the stand-in has its own. */
  xrplFaucetUrl: string | undefined;
  /**
   * XRPL_TEST_SIGNING: POST /non-custodian-xrpl/sign (the spec's "testing only" route) signs
   * messages with service-held keys. Default: on with sandboxes (development and tests), off
   * in production, where turning it on is refused at start.
   */
  xrplTestSigning: boolean;
  /**
   * EVENTS_ALLOW_PRIVATE_URLS=on: event endpoints may use http and private or loopback
   * addresses (tests and development). Off by default: https to public addresses only.
   */
  eventsAllowPrivateUrls: boolean;
}

export interface S3Config {
  /** S3_ENDPOINT: an S3-compatible server (MinIO, Ceph, R2...); undefined: AWS itself. */
  endpoint: string | undefined;
  bucket: string;
  region: string;
  /** Both or neither: neither means the SDK's default credential chain (instance role, profile). */
  accessKeyId: string | undefined;
  secretAccessKey: string | undefined;
}

/** Chain id of the local in-process EVM chain when EVM_CHAIN_ID is not set (Hardhat's). */
export const LOCAL_EVM_CHAIN_ID = 31337;

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

/** A connection URL fit for a log line or an error message: its password replaced by `****`. */
export function maskedUrl(value: string): string {
  try {
    const url = new URL(value);
    if (url.password) url.password = '****';
    return url.toString();
  } catch {
    return '(not a valid URL)';
  }
}

/** A master key as written in MASTER_KEY or a key file: 32 bytes as 64 hex characters or base64; undefined if not. */
export function parseKeyText(value: string): Buffer | undefined {
  const text = value.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
  return key.length === 32 ? key : undefined;
}

function parseMasterKey(value: string): Buffer {
  const key = parseKeyText(value);
  if (!key) throw new ConfigError('MASTER_KEY', 'must be 32 bytes, as 64 hex characters or base64');
  return key;
}

/** Reads and validates every environment variable once. Throws ConfigError naming the variable. */
export function loadConfig(env: Env = process.env): Config {
  const portText = optional(env, 'PORT') ?? '3000';
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || !Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError('PORT', 'must be an integer between 0 and 65535');
  }

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
  const tokenIssuerRaw = optional(env, 'TOKEN_ISSUER');
  const tokenIssuer = tokenIssuerRaw ? parseUrl('TOKEN_ISSUER', tokenIssuerRaw, ['http:', 'https:']).replace(/\/+$/, '') : publicBaseUrl;

  const masterKeyRaw = optional(env, 'MASTER_KEY');
  const masterKey = masterKeyRaw === undefined ? undefined : parseMasterKey(masterKeyRaw);
  if (masterKey === undefined && databaseUrl !== undefined && env.NODE_ENV === 'production') {
    throw new ConfigError('MASTER_KEY', 'is required in production when DATABASE_URL is set');
  }

  const logLevel = (optional(env, 'LOG_LEVEL') ?? 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}`);
  }

  const production = env.NODE_ENV === 'production';
  const sandboxes = onOff(env, 'SANDBOXES', !production);
  const idvSandboxSetting = onOff(env, 'IDV_SANDBOX', true);
  if (production && !sandboxes && optional(env, 'IDV_SANDBOX') !== undefined && idvSandboxSetting) {
    throw new ConfigError('IDV_SANDBOX', 'cannot turn a sandbox on in production by itself: set SANDBOXES=on to serve sandboxes');
  }
  const idvSandbox = sandboxes && idvSandboxSetting;
  // The sandboxes let anyone approve a verification: outside production, where they are on by
  // default, the service listens on loopback unless HOST says otherwise.
  const host = optional(env, 'HOST') ?? (sandboxes && !production ? '127.0.0.1' : '0.0.0.0');
  if (/\s/.test(host)) throw new ConfigError('HOST', 'must be a host name or address');

  const trustProxy = parseTrustProxy(optional(env, 'TRUST_PROXY'));
  const evm = parseEvm(env);

  const s3 = parseS3(env);
  const xrplUrlRaw = optional(env, 'XRPL_URL');
  const xrplUrl = xrplUrlRaw && parseUrl('XRPL_URL', xrplUrlRaw, ['ws:', 'wss:']);
  const xrplFaucetRaw = optional(env, 'XRPL_FAUCET_URL');
  const xrplFaucetUrl = xrplFaucetRaw && parseUrl('XRPL_FAUCET_URL', xrplFaucetRaw, ['http:', 'https:']);

  const localChains = parseLocalChains(env);
  const metrics = parseMetrics(env);
  const eventsAllowPrivateUrls = onOff(env, 'EVENTS_ALLOW_PRIVATE_URLS', false);
  const xrplTestSigning = onOff(env, 'XRPL_TEST_SIGNING', sandboxes && !production);
  if (production && xrplTestSigning) throw new ConfigError('XRPL_TEST_SIGNING', 'is a testing aid and cannot be on in production');
  // The crash tests' hook (platform/module/in-flight.ts crashPoint): a process that kills itself
  // at a named step has no place in production.
  if (production && optional(env, 'BASTION_CRASH_AT') !== undefined) throw new ConfigError('BASTION_CRASH_AT', 'is a testing aid and cannot be set in production');

  return { port, host, dataDir, databaseUrl, redisUrl, smtpUrl, mailFrom, publicBaseUrl, tokenIssuer, masterKey, logLevel, sandboxes, production, idvSandbox, trustProxy, s3, evm, localChains, xrplUrl, xrplFaucetUrl, xrplTestSigning, eventsAllowPrivateUrls, metrics };
}

function onOff(env: Env, name: string, fallback: boolean): boolean {
  const raw = optional(env, name)?.toLowerCase();
  if (raw === undefined) return fallback;
  if (!['on', 'off', 'true', 'false'].includes(raw)) throw new ConfigError(name, 'must be on or off');
  return raw === 'on' || raw === 'true';
}

/** The sandboxes a running service serves, for GET /ready and the start log. */
export function servedSandboxes(config: Pick<Config, 'idvSandbox' | 'sandboxes' | 'xrplUrl'>): string[] {
  return [
    ...(config.idvSandbox ? ['idv-a', 'idv-b'] : []),
    ...(config.sandboxes ? ['business-profile-a', 'bank-link', 'custody-a', 'custody-b'] : []),
    ...(config.sandboxes && !config.xrplUrl ? ['xrpl-ledger'] : []),
  ];
}

/** METRICS_PORT (a port, 0, or `off`/unset: not served) and METRICS_HOST. */
function parseMetrics(env: Env): Config['metrics'] {
  const raw = optional(env, 'METRICS_PORT')?.toLowerCase();
  const host = optional(env, 'METRICS_HOST') ?? '127.0.0.1';
  if (/\s/.test(host) || host === '') throw new ConfigError('METRICS_HOST', 'must be a host name or address');
  if (raw === undefined || raw === 'off') return { port: undefined, host };
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value > 65535) throw new ConfigError('METRICS_PORT', 'must be a port (0 to 65535; 0: a random free port) or off');
  return { port: value, host };
}

/** EVM_LOCAL_RPC_PORT (a port, 0 or `off`), XRPL_LOCAL_PORT (a port or 0), LOCAL_CHAINS_HOST. */
function parseLocalChains(env: Env): Config['localChains'] {
  const port = (name: string, fallback: number): number => {
    const text = optional(env, name) ?? String(fallback);
    const value = Number(text);
    if (!/^\d+$/.test(text) || value > 65535) throw new ConfigError(name, 'must be a port (0 to 65535; 0: a random free port)' + (name === 'EVM_LOCAL_RPC_PORT' ? ' or off' : ''));
    return value;
  };
  const evmRaw = optional(env, 'EVM_LOCAL_RPC_PORT')?.toLowerCase();
  const host = optional(env, 'LOCAL_CHAINS_HOST') ?? '127.0.0.1';
  if (/\s/.test(host) || host === '') throw new ConfigError('LOCAL_CHAINS_HOST', 'must be a host name or address');
  return {
    host,
    evmRpcPort: evmRaw === 'off' ? undefined : port('EVM_LOCAL_RPC_PORT', 8545),
    xrplPort: port('XRPL_LOCAL_PORT', 6006),
  };
}

/** EVM_RPC_URL (http/https) needs EVM_CHAIN_ID; without a URL the local chain uses EVM_CHAIN_ID or 31337. */
function parseEvm(env: Env): Config['evm'] {
  const rpcRaw = optional(env, 'EVM_RPC_URL');
  const rpcUrl = rpcRaw && parseUrl('EVM_RPC_URL', rpcRaw, ['http:', 'https:']);
  const chainIdRaw = optional(env, 'EVM_CHAIN_ID');
  if (chainIdRaw === undefined) {
    if (rpcUrl) throw new ConfigError('EVM_CHAIN_ID', 'is required when EVM_RPC_URL is set');
    return { rpcUrl, chainId: LOCAL_EVM_CHAIN_ID };
  }
  const chainId = Number(chainIdRaw);
  if (!/^\d+$/.test(chainIdRaw) || !Number.isSafeInteger(chainId) || chainId < 1 || chainId > 2 ** 32 - 1) {
    throw new ConfigError('EVM_CHAIN_ID', 'must be a positive integer chain id');
  }
  return { rpcUrl, chainId };
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

/**
 * S3_BUCKET turns the S3-compatible store on; S3_ENDPOINT (path-style addressing), the key
 * pair and S3_REGION (default us-east-1) refine it. Any S3 variable without a bucket is an error
 * rather than a silent fallback to local files.
 */
function parseS3(env: Env): S3Config | undefined {
  const bucket = optional(env, 'S3_BUCKET');
  const endpointRaw = optional(env, 'S3_ENDPOINT');
  const accessKeyId = optional(env, 'S3_ACCESS_KEY_ID');
  const secretAccessKey = optional(env, 'S3_SECRET_ACCESS_KEY');
  const regionRaw = optional(env, 'S3_REGION');
  if (!bucket) {
    if (endpointRaw || accessKeyId || secretAccessKey || regionRaw) {
      throw new ConfigError('S3_BUCKET', 'is required when any other S3_ variable is set');
    }
    return undefined;
  }
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) {
    throw new ConfigError('S3_BUCKET', 'must be a bucket name: 3-63 lower-case letters, digits, dots and hyphens');
  }
  const endpoint = endpointRaw && parseUrl('S3_ENDPOINT', endpointRaw, ['http:', 'https:']).replace(/\/+$/, '');
  if (Boolean(accessKeyId) !== Boolean(secretAccessKey)) {
    throw new ConfigError(accessKeyId ? 'S3_SECRET_ACCESS_KEY' : 'S3_ACCESS_KEY_ID', 'must be set together with its pair');
  }
  const region = regionRaw ?? 'us-east-1';
  if (!/^[a-z0-9-]{1,32}$/.test(region)) throw new ConfigError('S3_REGION', 'must be a region name such as us-east-1');
  return { endpoint, bucket, region, accessKeyId, secretAccessKey };
}
