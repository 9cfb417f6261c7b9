import { sql, type SQL } from 'drizzle-orm';

/**
 * `and <column> in (<tenants>)`: narrows a worker's cross-tenant query (a claim, a probe, a
 * prune) to the given tenants, as test harnesses sharing one database run them; empty when
 * not narrowed. Each id is a `::uuid` parameter (plain: a claim can still go as one message).
 */
export function andTenantIn(column: string, onlyTenants?: readonly string[]): SQL {
  return onlyTenants ? sql`and ${sql.raw(column)} in (${sql.join(onlyTenants.map((t) => sql`${t}::uuid`), sql`, `)})` : sql``;
}
