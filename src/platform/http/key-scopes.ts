/**
 * What an API key may call. A key carries a list of scopes; no list (every key made before
 * scopes existed) is `all`. A route belongs to one area, named by its OpenAPI tag (or by its
 * config field `keyScope`); a key admits the route when it holds `all` or that area. With
 * `read-only` in the list, only GET and HEAD pass (on the areas it names, or on every area when
 * it names none).
 */
export const KEY_SCOPES = ['all', 'read-only', 'users', 'kyc', 'wallets', 'documents'] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];
/** The area of a route: one of the scopes, or `all` for routes only an all-areas key reaches. */
export type KeyArea = Exclude<KeyScope, 'read-only'>;

/** The area of each OpenAPI tag; a tag not listed (Audit, Entities, Events, API keys) needs `all`. */
const AREA_OF_TAG: Record<string, KeyArea> = {
  Authentication: 'users',
  Users: 'users',
  KYC: 'kyc',
  Identity: 'kyc',
  Accreditations: 'kyc',
  Wallets: 'wallets',
  'Wallets (XRPL)': 'wallets',
  'Custody (custody-a)': 'wallets',
  'Custody provider (custody-b)': 'wallets',
  Transfers: 'wallets',
  'Sandbox faucets': 'wallets',
  'Bank-account linking': 'wallets',
  'Bank-account linking: sandbox originators': 'wallets',
  Documents: 'documents',
};

/** The area of a route from its tags (the first that names one); `all` otherwise. */
export function areaOfTags(tags: readonly string[] | undefined): KeyArea {
  for (const tag of tags ?? []) {
    // Own keys only: a tag named like an Object.prototype member (toString, __proto__) names no area.
    if (Object.hasOwn(AREA_OF_TAG, tag)) return AREA_OF_TAG[tag]!;
  }
  return 'all';
}

/** True when a key with `scopes` may call a route of `area` with `method`. */
export function keyAdmits(scopes: readonly string[] | null | undefined, area: KeyArea, method: string): boolean {
  if (!scopes || scopes.length === 0) return true;
  const readOnly = scopes.includes('read-only');
  if (readOnly && method !== 'GET' && method !== 'HEAD') return false;
  const areas = scopes.filter((s) => s !== 'read-only');
  if (areas.length === 0) return readOnly;
  return areas.includes('all') || (area !== 'all' && areas.includes(area));
}
