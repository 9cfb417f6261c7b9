import { createHmac } from 'node:crypto';
import { Type, type Static } from 'typebox';
import { safeEqual } from '../../platform/crypto/hash.js';

/**
 * The identity-verification provider port. Two providers speak two protocols (docs/providers.md):
 * idv-a creates a verification session and reports events and a decision; idv-b creates a
 * wallet (web3) or regular session and reports one signed result. Both authenticate requests
 * and webhooks with an HMAC-SHA256 of the raw body under the tenant's shared secret.
 */
export const IDV_PROVIDERS = ['idv-a', 'idv-b'] as const;
export type IdvProviderName = (typeof IDV_PROVIDERS)[number];

/** Per-tenant settings of a provider, as an operator gives them. */
export const IdvProviderConfigSchema = Type.Object(
  {
    baseUrl: Type.String({ format: 'uri', maxLength: 500, description: "Provider API base URL, e.g. https://idv-a.example/api" }),
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

export interface IdvASessionRequest {
  /** Opaque to the provider, echoed in every webhook: "<tenantId>:<kycId>". */
  vendorData: string;
  webhooks: { event: string; decision: string };
  /** Where the provider's page sends the person when done. */
  callback?: string;
  person?: { firstName?: string; lastName?: string };
}

export type WalletChain = 'evm' | 'xrpl';

export interface IdvBSessionRequest {
  /** Our record id, echoed in the result webhook. */
  reference: string;
  flow: 'web3' | 'regular';
  webhookUrl: string;
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

export interface IdvPort {
  createSessionA(endpoint: IdvEndpoint, request: IdvASessionRequest): Promise<IdvSession>;
  createSessionB(endpoint: IdvEndpoint, request: IdvBSessionRequest): Promise<IdvSession>;
}

/** The signature header of requests and webhooks of both providers. */
export const SIGNATURE_HEADER = 'x-hmac-signature';
export const CLIENT_HEADER = 'x-auth-client';

/** HMAC-SHA256 of the raw body, lower-case hex. */
export function signBody(raw: string | Buffer, secret: string): string {
  return createHmac('sha256', secret).update(raw).digest('hex');
}

/** Constant-time check of a hex signature over the raw body (case-insensitive hex). */
export function verifyBodySignature(raw: string | Buffer, signature: string, secret: string): boolean {
  return safeEqual(signature.trim().toLowerCase(), signBody(raw, secret));
}

/** idv-a: decision statuses and event actions, keyed on the string. */
export const IDV_A_DECISIONS = ['approved', 'declined', 'resubmission_requested', 'review', 'expired', 'abandoned'] as const;
export const IDV_A_ACTIONS = ['started', 'submitted'] as const;
/** idv-b: the statuses its result webhook may carry. */
export const IDV_B_STATUSES = ['started', 'submitted', 'review', 'approved', 'declined', 'resubmission_requested', 'expired', 'abandoned'] as const;
