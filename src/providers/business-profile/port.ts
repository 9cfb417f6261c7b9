/**
 * The business-profile (KYB) provider port. One provider today, business-profile-a, in the
 * manner of Middesk (docs/providers.md): a business is created with its name, TIN, addresses
 * and people, moves pending -> in_review -> approved | rejected with review tasks, and the
 * provider reports changes with signed webhooks.
 */
export const BUSINESS_PROFILE_PROVIDERS = ['business-profile-a'] as const;
export type BusinessProfileProviderName = (typeof BUSINESS_PROFILE_PROVIDERS)[number];

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

/**
 * One tenant's business-profile provider (its API key bound in), made by the provider's
 * definition (src/providers/business-profile/business-profile-a/index.ts) and reached with
 * `platform.providers.port(tenantId, 'business-profile')`. Failures are `ProviderError`s.
 */
export interface BusinessProfileClient {
  createBusiness(request: CreateBusinessRequest): Promise<ProviderBusiness>;
  getBusiness(businessId: string): Promise<ProviderBusiness>;
  /** Reads a webhook whose signature the definition checked: its event, or 'malformed' when it is not a business event. */
  parseEvent(raw: string): ProviderEvent | 'malformed';
}

declare module '../../platform/providers/define.js' {
  interface ProviderPorts {
    'business-profile': BusinessProfileClient;
  }
}
