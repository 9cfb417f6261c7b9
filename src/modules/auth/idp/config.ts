import type { ProviderSettings } from '../../../platform/provider-settings/settings.js';
import type { Providers } from '../../../platform/providers/service.js';

/** The IdP's kind and provider in provider_settings (src/providers/idp/oidc/index.ts declares it). */
export const IDP_KIND = 'idp';
export const IDP_PROVIDER = 'oidc';

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

const MASK = '********';

/**
 * The `idp set|show|remove` commands and GET /auth/idp/config, kept because the README
 * promises them: the same settings as `provider configure|show|remove --kind idp --provider
 * oidc`, in provider_settings (the client secret sealed there). The definition checks them; a
 * tenant with none is 503 PROVIDER_NOT_CONFIGURED, as every kind.
 */
export function createIdpConfigService(deps: { providerSettings: ProviderSettings; providers: Pick<Providers, 'port'>; callbackUrl: () => string }) {
  const { providerSettings, providers, callbackUrl } = deps;

  async function view(tenantId: string): Promise<IdpConfigView> {
    const idp = await providers.port(tenantId, IDP_KIND);
    const { updatedAt } = await providerSettings.view(tenantId, IDP_KIND, IDP_PROVIDER);
    return {
      issuer: idp.issuer,
      clientId: idp.clientId,
      clientSecret: MASK,
      scopes: idp.scopes,
      redirectAllow: [...idp.redirectAllow],
      callbackUrl: callbackUrl(),
      updatedAt: updatedAt ?? new Date(0).toISOString(),
    };
  }

  return {
    /** Sets the tenant's provider (checked by its definition; ProviderSettingsError when refused). */
    async set(tenantId: string, input: IdpSettingsInput): Promise<IdpConfigView> {
      const issuer = input.issuer.trim();
      await providerSettings.configure(tenantId, IDP_KIND, IDP_PROVIDER, {
        baseUrl: issuer,
        // The issuer identifier is compared exactly with the `iss` the provider signs: kept as given.
        settings: {
          issuer,
          'client-id': input.clientId.trim(),
          ...(input.scopes !== undefined ? { scopes: input.scopes } : {}),
          'redirect-allow': input.redirectAllow.map((url) => url.trim()).join(' '),
        },
        secrets: { 'client-secret': input.clientSecret },
      });
      return view(tenantId);
    },
    view,
    /** Forgets the tenant's provider; false when it had none. */
    remove: (tenantId: string): Promise<boolean> => providerSettings.remove(tenantId, IDP_KIND, IDP_PROVIDER),
  };
}

export type IdpConfigService = ReturnType<typeof createIdpConfigService>;
