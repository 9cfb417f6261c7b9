import type { Clock } from '../../../platform/clock.js';
import { ProviderSettingsError } from '../../../platform/provider-settings/settings.js';
import { defineProvider } from '../../../platform/providers/define.js';
import { ProviderError } from '../../../platform/providers/errors.js';
import { NETWORK_CHAIN_IDS, XRPL_NETWORK_NAMES, type CustodyBConnection, type CustodyBLocation } from '../port.js';
import { createCustodyBClient } from './http.js';

const DEFAULT_NETWORK = 'EthereumSepolia';

/** What the definition needs of the built-in sandbox: a tenant's connection there (its organisation opened on first use). */
export interface CustodyBSandboxAccess {
  connection(tenantId: string): Promise<CustodyBConnection>;
}

/** The service's own chains: where the sandbox's wallets live (its EVM chain id, its XRPL network's name). */
export interface LocalChains {
  evmChainId: number;
  xrplNetwork: () => Promise<string>;
}

const known = (network: string) => NETWORK_CHAIN_IDS[network] !== undefined || XRPL_NETWORK_NAMES[network] !== undefined;

/**
 * custody-b: delegated wallets in Dfns's protocol (docs/providers.md, "Delegated custody").
 * A configured provider's wallets live on the chains its networks name; the sandbox's on the
 * service's own chains (the local EVM chain, the XRPL ledger it uses).
 */
export function custodyB(deps: { clock: Clock; localChains: LocalChains; fetch?: typeof fetch; sandbox?: CustodyBSandboxAccess }) {
  const { sandbox, localChains } = deps;
  const http = { now: () => deps.clock.now(), ...(deps.fetch ? { fetch: deps.fetch } : {}) };
  return defineProvider({
    kind: 'custody-b',
    name: 'custody-b',
    description: 'custody-b: delegated wallets (Dfns protocol); unset = the built-in sandbox',
    settings: {
      appId: { required: true, description: 'The application id (x-dfns-appid)' },
      serviceCredId: { required: true, description: "The service account's key credential id" },
      network: { required: false, description: 'Default network of new wallets (e.g. EthereumSepolia, XrpLedgerTestnet)' },
    },
    secrets: {
      serviceToken: { required: true, description: "The service account's bearer token" },
      servicePrivateKey: { required: true, description: "The service account's key credential (PKCS#8 PEM, P-256 or Ed25519)" },
    },
    validate: ({ settings }) => {
      if (settings.network !== undefined && !known(settings.network)) throw new ProviderSettingsError(`network ${settings.network} is not a network custody-b wallets are opened on here`);
    },
    adapter(config) {
      const { appId, serviceCredId } = config.settings;
      const { serviceToken, servicePrivateKey } = config.secrets;
      if (!appId || !serviceCredId || !serviceToken || !servicePrivateKey) {
        throw ProviderError.notConfigured('custody-b', 'custody-b', 'its settings lack appId, serviceCredId, serviceToken or servicePrivateKey');
      }
      const protocol = createCustodyBClient({ baseUrl: config.baseUrl, appId, serviceCredId, serviceToken, servicePrivateKeyPem: servicePrivateKey }, http);
      const onSandbox = config.sandbox;
      const xrplNames = async (): Promise<string[]> => (onSandbox ? [await localChains.xrplNetwork()] : [...new Set(Object.values(XRPL_NETWORK_NAMES))]);
      const evmIds = (): number[] => (onSandbox ? [localChains.evmChainId] : [...new Set(Object.values(NETWORK_CHAIN_IDS))]);
      return {
        ...protocol,
        defaultNetwork: config.settings.network ?? DEFAULT_NETWORK,
        async locationOf(network: string): Promise<CustodyBLocation | undefined> {
          const xrpl = XRPL_NETWORK_NAMES[network];
          if (xrpl !== undefined) return { chain: 'xrpl', network: onSandbox ? await localChains.xrplNetwork() : xrpl };
          const chainId = NETWORK_CHAIN_IDS[network];
          if (chainId !== undefined) return { chain: 'evm', chainId: onSandbox ? localChains.evmChainId : chainId };
          return undefined;
        },
        async locations(chain: 'evm' | 'xrpl'): Promise<CustodyBLocation[]> {
          return chain === 'xrpl' ? (await xrplNames()).map((network) => ({ chain: 'xrpl', network })) : evmIds().map((chainId) => ({ chain: 'evm', chainId }));
        },
      };
    },
    ...(sandbox
      ? {
          sandbox: {
            async config(tenantId: string, stored: { settings: Record<string, string> }) {
              const conn = await sandbox.connection(tenantId);
              return {
                baseUrl: conn.baseUrl,
                settings: { appId: conn.appId, serviceCredId: conn.serviceCredId, ...(stored.settings.network ? { network: stored.settings.network } : {}) },
                secrets: { serviceToken: conn.serviceToken, servicePrivateKey: conn.servicePrivateKeyPem },
              };
            },
          },
        }
      : {}),
    // Rows from before custody-b had its own kind (kind custody): their secrets are still sealed under that kind's context.
    legacyContext: (tenantId: string) => `provider:${tenantId}:custody:custody-b`,
    // The service's own calls (its token, its key) failing is the provider's or the operator's
    // fault: 502 with custody-b's code. The caller's own refusals are the module's (errors.ts).
    codes: { unauthorized: 'CUSTODY_B_PROVIDER_UNAVAILABLE', refused: 'CUSTODY_B_PROVIDER_UNAVAILABLE', malformed_answer: 'CUSTODY_B_PROVIDER_UNAVAILABLE' },
  });
}
