import { Type, type Static, type TSchema } from 'typebox';

/**
 * The identity-verification port: one operation set for every provider of the kind. Each
 * provider's adapter (`<provider>/http.ts`) speaks its own protocol (docs/providers.md):
 * creating a session, and checking and reading its webhooks into one shape, `IdvWebhook`.
 * The module (src/modules/kyc) knows nothing of a provider's paths, bodies or signatures.
 */
export const IDV_PROVIDERS = ['idv-a', 'idv-b'] as const;
export type IdvProviderName = (typeof IDV_PROVIDERS)[number];

/** Per-tenant settings of a provider, as an operator gives them. */
export const IdvProviderConfigSchema = Type.Object(
  {
    baseUrl: Type.String({ format: 'uri', maxLength: 500, description: 'Provider API base URL, e.g. https://idv-a.example/api' }),
    clientId: Type.String({ minLength: 1, maxLength: 200, description: 'The id the provider knows the tenant by (x-auth-client)' }),
    webhookSecret: Type.String({ minLength: 16, maxLength: 500, description: 'Shared secret of the HMAC signatures' }),
  },
  { additionalProperties: false },
);
export type IdvProviderConfig = Static<typeof IdvProviderConfigSchema>;

/** Where and as whom to call a provider for one tenant. */
export interface IdvEndpoint {
  provider: IdvProviderName;
  baseUrl: string;
  clientId: string;
  secret: string;
}

export type WalletChain = 'evm' | 'xrpl';

/** A verification session to open, whatever the provider. */
export interface IdvSessionRequest {
  tenantId: string;
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

export class IdvProviderError extends Error {
  constructor(
    readonly kind: 'unreachable' | 'rejected',
    message: string,
  ) {
    super(message);
    this.name = 'IdvProviderError';
  }
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

/** One webhook route of a provider: where Bastion receives it and how to read it. */
export interface IdvWebhookRoute {
  /** Path under Bastion's base URL, e.g. /kyc/callback/idv-a/decision. */
  path: string;
  summary: string;
  body: TSchema;
  /** A query schema when the tenant travels in the query. */
  query?: TSchema;
  /** The tenant whose secret signs it, from the body or query as the provider sends it. */
  tenantOf(body: unknown, query: unknown): string | undefined;
  /** The webhook in the common shape, or the name of the field that does not parse. */
  /** The webhook in the common shape, or the field that does not parse or names another tenant than `tenantId` (the signer). */
  read(body: unknown, tenantId: string): IdvWebhook | { malformed: string };
}

/** A provider's adapter: its protocol, outbound and inbound. */
export interface IdvAdapter {
  readonly provider: IdvProviderName;
  createSession(endpoint: IdvEndpoint, request: IdvSessionRequest): Promise<IdvSession>;
  readonly webhooks: readonly IdvWebhookRoute[];
  /** The header that carries the webhook signature. */
  readonly signatureHeader: string;
  /** Checks a webhook's signature over its raw body, in constant time. */
  verifyWebhook(raw: Buffer, signature: string, secret: string): boolean;
}

/** What the KYC module uses: every provider's adapter, by name. */
export type IdvPort = Record<IdvProviderName, IdvAdapter>;
