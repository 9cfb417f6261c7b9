import { readFileSync } from 'node:fs';
import type { Container } from './container.js';
import { AppError } from './platform/http/errors.js';

/**
 * The operator commands, run by the CLI in its own process (PostgreSQL, or the embedded
 * database when no service holds it) or by the running service for a CLI on its control
 * socket (control-socket.ts). Options arrive parsed; secret files are read by the CLI.
 */
export class UsageError extends Error {}

export type Options = Record<string, string | undefined>;
/** Options given more than once, and the words after `--redirect-allow`. */
export interface Lists {
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
export function readSecretFile(option: string, path: string): string {
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

export const commands: Record<string, (c: Container, o: Options, lists: Lists) => Promise<unknown>> = {
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
    const webhookSecret = o['secret-file-content'] ?? readSecretFile('secret-file', need(o, 'secret-file'));
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
    const clientSecret = secretFile ? (o['client-secret-file-content'] ?? readSecretFile('client-secret-file', secretFile)) : need(o, 'client-secret');
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

