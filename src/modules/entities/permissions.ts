/**
 * The closed set of entity permissions (docs/decisions.md, "Entities"). `owner` holds every
 * permission; each `manage_*` permission includes `view`. What each route needs is in
 * ROUTE_PERMISSIONS' users: the service asks `holds()` against the rows read from the database.
 */
export const PERMISSIONS = ['owner', 'view', 'manage_entity', 'manage_users', 'manage_payment_methods', 'invest', 'sign_documents'] as const;
export type Permission = (typeof PERMISSIONS)[number];

const INCLUDES_VIEW: ReadonlySet<Permission> = new Set(['manage_entity', 'manage_users', 'manage_payment_methods']);

/** True when a member holding `granted` may do what `needed` allows. */
export function holds(granted: readonly Permission[], needed: Permission): boolean {
  if (granted.includes('owner') || granted.includes(needed)) return true;
  return needed === 'view' && granted.some((p) => INCLUDES_VIEW.has(p));
}

export function isPermission(value: string): value is Permission {
  return (PERMISSIONS as readonly string[]).includes(value);
}

/** Sorted in the order of PERMISSIONS, for stable answers. */
export function sortPermissions(list: readonly Permission[]): Permission[] {
  return PERMISSIONS.filter((p) => list.includes(p));
}
