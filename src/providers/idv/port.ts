/**
 * The identity-verification port: one operation set for every provider of the kind, bound to
 * one tenant's settings (`platform.providers.port(tenantId, 'idv', name)`). Each provider's
 * adapter (`<provider>/http.ts`) speaks its own protocol (docs/providers.md): creating a
 * session, and reading its webhooks into one shape, `IdvWebhook`. Its definition
 * (`<provider>/index.ts`) declares the webhook routes, their signature check and event id.
 * The module (src/modules/kyc) knows nothing of a provider's paths, bodies or signatures.
 */
export const IDV_PROVIDERS = ['idv-a', 'idv-b'] as const;
export type IdvProviderName = (typeof IDV_PROVIDERS)[number];

export type WalletChain = 'evm' | 'xrpl';

/** A verification session to open, whatever the provider. */
export interface IdvSessionRequest {
  /** Our record; every webhook of the session names it again. */
  kycId: string;
  /** Base of Bastion's callback routes (PUBLIC_BASE_URL): the adapter adds its provider's paths. */
  callbackBaseUrl: string;
  /** `session`: a document and selfie check; `web3`: bound to a signed wallet challenge; `regular`: without. */
  flow: 'session' | 'web3' | 'regular';
  /** Where the provider's page sends the person when done. */
  returnUrl?: string;
  person?: { firstName?: string; lastName?: string };
  wallet?: { chain: WalletChain; address: string; message: string };
}

export interface IdvSession {
  sessionId: string;
  url: string;
}

/** The statuses a webhook may report, across providers. */
export const IDV_WEBHOOK_STATUSES = ['started', 'submitted', 'review', 'approved', 'declined', 'resubmission_requested', 'expired', 'abandoned'] as const;
export type IdvWebhookStatus = (typeof IDV_WEBHOOK_STATUSES)[number];

/** A provider's webhook, read by its adapter. */
export interface IdvWebhook {
  kind: 'event' | 'decision' | 'result';
  kycId: string;
  sessionId: string;
  status: IdvWebhookStatus;
  reason: string | null;
  person?: { firstName?: string | null; lastName?: string | null; dateOfBirth?: string | null };
  document?: { country?: string | null; type?: string | null };
  wallet?: { chain: WalletChain; address: string; signature: string; publicKey?: string };
}

/** One tenant's view of an identity-verification provider. Failures are ProviderErrors. */
export interface IdvPort {
  readonly provider: IdvProviderName;
  createSession(request: IdvSessionRequest): Promise<IdvSession>;
  /**
   * A verified delivery to the route `route` (a name of the definition's `webhooks.routes`),
   * validated against its body schema, in the common shape; or the field that does not parse
   * or names another tenant than this port's.
   */
  readWebhook(route: string, body: unknown): IdvWebhook | { malformed: string };
}

declare module '../../platform/providers/define.js' {
  interface ProviderPorts {
    idv: IdvPort;
  }
}
