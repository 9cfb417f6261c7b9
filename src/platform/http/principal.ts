/**
 * Who calls, as the guards establish it: the types the guards, the call context and the audit
 * actor share (apart from guards.ts, which builds the context: no import runs in a circle).
 */
export type Role = 'user' | 'admin';

export interface TenantContext {
  id: string;
  name: string;
  settings: Record<string, unknown>;
}

export type Principal =
  | { kind: 'apiKey'; tenantId: string; keyId: string; scopes: string[] | null }
  | { kind: 'user'; tenantId: string; userId: string; role: Role; sessionId: string };

/** Claims every access token carries, as the verifier returns them. */
export interface AccessClaims {
  sub: string;
  tid: string;
  sid: string;
  role: Role;
  /** Present on tokens minted for a user by the tenant's back end (RFC 8693 style): `{ sub: 'api-key:<keyId>' }`. */
  act?: { sub: string };
}

/**
 * Who may call a route. `public`: inherently public (sign-up, login, callbacks...).
 * Otherwise the accepted credentials: an API key of the tenant, and/or a bearer token with at
 * least the given role. Every tenant-scoped route must declare one.
 */
export type AuthRequirement = 'public' | { apiKey?: true; bearer?: Role };
