import type { Clock } from '../../../platform/clock.js';
import type { SecretBox } from '../../../platform/crypto/secrets.js';
import type { OidcClientSettings } from '../../../providers/idp/oidc.js';
import { IdpErrors } from './errors.js';
import { isLoopbackHost, normalizeAllowEntry } from '../../../platform/http/redirect-allow.js';
import type { IdpRepo } from './repo.js';
import type { IdpConfigRow } from './table.js';

export interface IdpSettingsInput {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Space-separated; `openid` is added when missing. Default `openid email profile`. */
  scopes?: string;
  redirectAllow: string[];
}

/** What an admin may read: everything but the secret. */
export interface IdpConfigView {
  issuer: string;
  clientId: string;
  clientSecret: string;
  scopes: string;
  redirectAllow: string[];
  /** The redirect URI to register at the provider. */
  callbackUrl: string;
  updatedAt: string;
}

export interface IdpTenantSettings {
  row: IdpConfigRow;
  client: OidcClientSettings;
}

export const DEFAULT_IDP_SCOPES = 'openid email profile';
const MASK = '********';

function normalizeIssuer(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw IdpErrors.configInvalid('issuer must be an absolute URL');
  }
  const secure = url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname));
  if (!secure) throw IdpErrors.configInvalid('issuer must use https (http is for loopback hosts only)');
  if (url.search || url.hash || url.username || url.password) throw IdpErrors.configInvalid('issuer must not carry a query, fragment or credentials');
  // The issuer identifier is compared exactly with the `iss` the provider signs: keep it as given.
  return raw;
}

function normalizeScopes(raw: string | undefined): string {
  const scopes = (raw ?? DEFAULT_IDP_SCOPES).split(/[\s,]+/).filter(Boolean);
  if (scopes.some((s) => !/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(s))) throw IdpErrors.configInvalid('scopes hold an invalid character');
  return [...new Set(['openid', ...scopes])].join(' ');
}

/** Per-tenant settings of the external OpenID provider; the client secret is sealed at rest. */
export function createIdpConfigService(deps: { repo: IdpRepo; secrets: SecretBox; clock: Clock; callbackUrl: () => string }) {
  const { repo, secrets, clock, callbackUrl } = deps;
  const context = (tenantId: string) => `idp:${tenantId}`;

  const view = (row: IdpConfigRow): IdpConfigView => ({
    issuer: row.issuer,
    clientId: row.clientId,
    clientSecret: MASK,
    scopes: row.scopes,
    redirectAllow: row.redirectAllow,
    callbackUrl: callbackUrl(),
    updatedAt: row.updatedAt.toISOString(),
  });

  return {
    async set(tenantId: string, input: IdpSettingsInput): Promise<IdpConfigView> {
      const issuer = normalizeIssuer(input.issuer.trim());
      const clientId = input.clientId.trim();
      if (!clientId || clientId.length > 512) throw IdpErrors.configInvalid('client id must hold 1 to 512 characters');
      if (!input.clientSecret || input.clientSecret.length > 4096) throw IdpErrors.configInvalid('client secret must hold 1 to 4096 characters');
      if (input.redirectAllow.length === 0) throw IdpErrors.configInvalid('at least one allowed redirect URL is required');
      const redirectAllow = input.redirectAllow.map((raw) => {
        const result = normalizeAllowEntry(raw.trim());
        if ('problem' in result) throw IdpErrors.configInvalid(result.problem);
        return result.entry;
      });
      const now = clock.now();
      const row: IdpConfigRow = {
        tenantId,
        issuer,
        clientId,
        clientSecretSealed: secrets.encrypt(input.clientSecret, context(tenantId)),
        scopes: normalizeScopes(input.scopes),
        redirectAllow: [...new Set(redirectAllow)],
        createdAt: now,
        updatedAt: now,
      };
      await repo.upsertConfig(row);
      return view((await repo.findConfig(tenantId)) ?? row);
    },

    async view(tenantId: string): Promise<IdpConfigView> {
      const row = await repo.findConfig(tenantId);
      if (!row) throw IdpErrors.notConfigured();
      return view(row);
    },

    async remove(tenantId: string): Promise<boolean> {
      return repo.deleteConfig(tenantId);
    },

    /** The tenant's settings with the secret opened, for talking to the provider. */
    async settings(tenantId: string): Promise<IdpTenantSettings> {
      const row = await repo.findConfig(tenantId);
      if (!row) throw IdpErrors.notConfigured();
      const clientSecret = await secrets.decrypt(row.clientSecretSealed, context(tenantId));
      return { row, client: { issuer: row.issuer, clientId: row.clientId, clientSecret } };
    },
  };
}

export type IdpConfigService = ReturnType<typeof createIdpConfigService>;
