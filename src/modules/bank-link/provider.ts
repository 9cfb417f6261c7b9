import type { ProviderSettings } from '../../platform/provider-settings/settings.js';
import type { Providers } from '../../platform/providers/service.js';
import { OWN_ORIGINATOR_SETTING, type BankLinkClient } from '../../providers/bank-link/port.js';

export const BANK_LINK_KIND = 'bank-link';
export const BANK_LINK_PROVIDER = 'plaid';

/**
 * The tenant's bank-link port: the provider `provider configure --kind bank-link --provider
 * plaid` (or its alias `bank-link configure`) set, else the built-in sandbox
 * (platform.providers; declared in src/providers/bank-link/plaid/index.ts).
 */
export function createBankLinkProvider(providers: Providers, settings: ProviderSettings) {
  return {
    client: (tenantId: string): Promise<BankLinkClient> => providers.port(tenantId, BANK_LINK_KIND, BANK_LINK_PROVIDER),
    /** Records the tenant's own originator (a setting of the kind, forgotten when the provider account changes). */
    setOwnOriginator: (tenantId: string, originatorClientId: string) => settings.update(tenantId, BANK_LINK_KIND, BANK_LINK_PROVIDER, { [OWN_ORIGINATOR_SETTING]: originatorClientId }),
    /** True when the tenant has bank-link settings (nothing is created): webhooks of others are refused. */
    async configured(tenantId: string): Promise<boolean> {
      return (await settings.stamp(tenantId, BANK_LINK_KIND, BANK_LINK_PROVIDER)).version > 0;
    },
  };
}

export type BankLinkProvider = ReturnType<typeof createBankLinkProvider>;
