/**
 * The business-profile (KYB) provider port. One provider today, business-profile-a, in the
 * manner of Middesk (docs/providers.md): a business is created with its name, TIN, addresses
 * and people, moves pending -> in_review -> approved | rejected with review tasks, and the
 * provider reports changes with signed webhooks.
 */
export const BUSINESS_PROFILE_PROVIDERS = ['business-profile-a'] as const;
export type BusinessProfileProviderName = (typeof BUSINESS_PROFILE_PROVIDERS)[number];

/** Where and as whom to call the provider for one tenant. */
export interface BusinessProfileEndpoint {
  baseUrl: string;
  apiKey: string;
}

export interface BusinessAddress {
  addressLine1: string;
  addressLine2?: string;
  city: string;
  state?: string;
  postalCode?: string;
  country: string;
}

export interface CreateBusinessRequest {
  /** Our reference, echoed in every webhook (the profile id). */
  externalId: string;
  name: string;
  /** The full TIN (EIN): nine digits. */
  tin: string;
  addresses: BusinessAddress[];
  people: Array<{ name: string; titles?: string[] }>;
  website?: string;
}

export const PROVIDER_STATUSES = ['pending', 'in_review', 'approved', 'rejected'] as const;
export type ProviderBusinessStatus = (typeof PROVIDER_STATUSES)[number];

export interface ReviewTask {
  key: string;
  category: string;
  label: string;
  status: 'success' | 'failure' | 'warning' | 'pending';
  message: string;
}

/** The provider's business, as the port hands it to the module (never the TIN). */
export interface ProviderBusiness {
  id: string;
  externalId: string | null;
  status: ProviderBusinessStatus;
  tasks: ReviewTask[];
  updatedAt: Date;
}

export interface ProviderEvent {
  id: string;
  type: string;
  business: ProviderBusiness;
}

export class BusinessProfileProviderError extends Error {
  constructor(
    readonly kind: 'unreachable' | 'rejected',
    message: string,
  ) {
    super(message);
    this.name = 'BusinessProfileProviderError';
  }
}

export interface BusinessProfilePort {
  createBusiness(endpoint: BusinessProfileEndpoint, request: CreateBusinessRequest): Promise<ProviderBusiness>;
  getBusiness(endpoint: BusinessProfileEndpoint, businessId: string): Promise<ProviderBusiness>;
  /**
   * Checks a webhook's signature over the exact raw body and parses it; undefined when the
   * signature does not verify (the caller answers 401).
   */
  verifyWebhook(raw: Buffer, signature: string | string[] | undefined, secret: string): ProviderEvent | undefined | 'malformed';
}
