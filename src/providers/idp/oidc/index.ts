import type { Clock } from '../../../platform/clock.js';
import { isLoopbackHost, normalizeAllowEntry } from '../../../platform/http/redirect-allow.js';
import { ProviderSettingsError } from '../../../platform/provider-settings/settings.js';
import { defineProvider } from '../../../platform/providers/define.js';
import { ProviderError } from '../../../platform/providers/errors.js';
import { createOidcRelyingParty } from './client.js';

export const DEFAULT_IDP_SCOPES = 'openid email profile';

/** The issuer identifier: https (http for loopback hosts only), no query, fragment or credentials; kept exactly as given. */
function checkIssuer(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ProviderSettingsError('issuer must be an absolute URL');
  }
  const secure = url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname));
  if (!secure) throw new ProviderSettingsError('issuer must use https (http is for loopback hosts only)');
  if (url.search || url.hash || url.username || url.password) throw new ProviderSettingsError('issuer must not carry a query, fragment or credentials');
  return raw;
}

/** Space- or comma-separated scopes, `openid` first and once. */
function scopesOf(raw: string | undefined): string {
  const scopes = (raw ?? DEFAULT_IDP_SCOPES).split(/[\s,]+/).filter(Boolean);
  if (scopes.some((s) => !/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(s))) throw new ProviderSettingsError('scopes hold an invalid character');
  return [...new Set(['openid', ...scopes])].join(' ');
}

/** The client URLs a login may return to (space-separated), normalized; at least one. */
function redirectAllowOf(raw: string | undefined): string[] {
  const entries = (raw ?? '').split(/\s+/).filter(Boolean);
  if (entries.length === 0) throw new ProviderSettingsError('at least one allowed redirect URL is required (redirect-allow)');
  return [
    ...new Set(
      entries.map((entry) => {
        const result = normalizeAllowEntry(entry);
        if ('problem' in result) throw new ProviderSettingsError(result.problem);
        return result.entry;
      }),
    ),
  ];
}

function clientIdOf(raw: string | undefined): string {
  const clientId = (raw ?? '').trim();
  if (!clientId || clientId.length > 512) throw new ProviderSettingsError('client id must hold 1 to 512 characters');
  return clientId;
}

/**
 * The tenant's external identity provider, spoken to in OpenID Connect (authorization code
 * with PKCE; docs/decisions.md, "IdP login"). No sandbox: a tenant without one is not
 * configured. The issuer is the base URL, or the `issuer` setting when the provider's
 * identifier differs from it (a trailing slash, which the base URL loses).
 */
export function oidcIdp(deps: { clock: Clock }) {
  return defineProvider({
    kind: 'idp',
    name: 'oidc',
    description: "oidc: the tenant's external OpenID Connect provider (discovered from the issuer); no sandbox",
    settings: {
      issuer: { required: false, description: 'The issuer identifier exactly as the provider signs it, when it differs from --base-url' },
      'client-id': { required: true, description: "Bastion's client id at the provider" },
      scopes: { required: false, description: `Space-separated; openid is always added (default "${DEFAULT_IDP_SCOPES}")` },
      'redirect-allow': { required: true, description: 'The client URLs a login may return to, at least one, space-separated (each admits itself and the paths below it)' },
    },
    secrets: { 'client-secret': { required: true, description: "Bastion's client secret at the provider" } },
    validate: ({ baseUrl, settings, secrets }) => {
      checkIssuer(settings.issuer ?? baseUrl);
      clientIdOf(settings['client-id']);
      scopesOf(settings.scopes);
      redirectAllowOf(settings['redirect-allow']);
      const secret = secrets['client-secret'] ?? '';
      if (!secret || secret.length > 4096) throw new ProviderSettingsError('client secret must hold 1 to 4096 characters');
    },
    adapter(config) {
      let settings: { issuer: string; clientId: string; scopes: string; redirectAllow: string[] };
      try {
        settings = {
          issuer: checkIssuer(config.settings.issuer ?? config.baseUrl),
          clientId: clientIdOf(config.settings['client-id']),
          scopes: scopesOf(config.settings.scopes),
          redirectAllow: redirectAllowOf(config.settings['redirect-allow']),
        };
      } catch (error) {
        throw ProviderError.notConfigured('idp', 'oidc', `its settings are not usable (${(error as Error).message})`);
      }
      const clientSecret = config.secrets['client-secret'];
      if (!clientSecret) throw ProviderError.notConfigured('idp', 'oidc', 'its settings lack the client secret');
      const party = createOidcRelyingParty({ issuer: settings.issuer, clientId: settings.clientId, clientSecret }, { clock: deps.clock });
      return {
        ...settings,
        newPkce: () => party.newPkce(),
        newNonce: () => party.newNonce(),
        authorizationUrl: (request) => party.authorizationUrl({ ...request, scope: settings.scopes }),
        complete: (checks) => party.complete(checks),
      };
    },
    // Rows carried over from idp_configs: the client secret still sealed under that table's context.
    legacyContext: (tenantId: string) => `idp:${tenantId}`,
    // Discovery answering outside the protocol (or not at all, see unreachable) is the IdP's code.
    codes: { malformed_answer: 'IDP_UNAVAILABLE' },
  });
}
