import { and, desc, eq, isNull, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../platform/db/client.js';
import { preparedQuery } from '../../platform/db/prepared.js';
import { apiKeys, tenants, type ApiKeyRow, type TenantRow } from '../../platform/tenancy/table.js';

export function createTenantsRepo(db: DbOrTx) {
  // Prepared: API keys are checked on every API-key request (never cached: revocation is immediate).
  const liveApiKey = preparedQuery<ApiKeyRow[], { tenantId: string; keyId: string }>(db, 'api_keys_live', (q) =>
    q
      .select()
      .from(apiKeys)
      .where(and(eq(apiKeys.tenantId, sql.placeholder('tenantId')), eq(apiKeys.id, sql.placeholder('keyId')), isNull(apiKeys.revokedAt)))
      .limit(1),
  );

  return {
    async insertTenant(row: { id: string; name: string }, tx: DbOrTx = db): Promise<TenantRow> {
      const [created] = await tx.insert(tenants).values(row).returning();
      return created!;
    },
    async findTenant(id: string, tx: DbOrTx = db): Promise<TenantRow | undefined> {
      const [row] = await tx.select().from(tenants).where(eq(tenants.id, id)).limit(1);
      return row;
    },
    async findTenantByName(name: string, tx: DbOrTx = db): Promise<TenantRow | undefined> {
      const [row] = await tx.select().from(tenants).where(eq(tenants.name, name)).limit(1);
      return row;
    },
    async updateSettings(id: string, settings: Record<string, unknown>, tx: DbOrTx = db): Promise<boolean> {
      const rows = await tx.update(tenants).set({ settings }).where(eq(tenants.id, id)).returning({ id: tenants.id });
      return rows.length > 0;
    },
    /**
     * True when some tenant admits this browser origin: its `corsOrigins` list names it, or it
     * has none and its app URL is on that origin (docs/decisions.md, "CORS per tenant").
     */
    async anyTenantAdmitsOrigin(origin: string, tx: DbOrTx = db): Promise<boolean> {
      const rows = await tx
        .select({ id: tenants.id })
        .from(tenants)
        .where(
          sql`(${tenants.settings} -> 'corsOrigins') @> ${JSON.stringify([origin])}::jsonb
            or (not (${tenants.settings} ? 'corsOrigins')
                and (${tenants.settings} ->> 'appUrl' = ${origin} or starts_with(${tenants.settings} ->> 'appUrl', ${`${origin}/`})))`,
        )
        .limit(1);
      return rows.length > 0;
    },
    async insertApiKey(
      tenantId: string,
      row: { id: string; secretHash: string; name?: string; scopes?: string[] | null; expiresAt?: Date | null; rotatedFrom?: string },
      tx: DbOrTx = db,
    ): Promise<ApiKeyRow> {
      const [created] = await tx
        .insert(apiKeys)
        .values({ tenantId, ...row })
        .returning();
      return created!;
    },
    async findLiveApiKey(tenantId: string, keyId: string, tx: DbOrTx = db): Promise<ApiKeyRow | undefined> {
      const [row] = await liveApiKey({ tenantId, keyId }, tx);
      return row;
    },
    /** The tenant's keys not revoked, newest first (expired ones included: their expiry shows why they fail). */
    async listApiKeys(tenantId: string, tx: DbOrTx = db): Promise<ApiKeyRow[]> {
      return tx.select().from(apiKeys).where(and(eq(apiKeys.tenantId, tenantId), isNull(apiKeys.revokedAt))).orderBy(desc(apiKeys.createdAt), desc(apiKeys.id)).limit(1000);
    },
    /** Moves a live key's expiry earlier (a rotation's overlap); never later. */
    async expireApiKeyBy(tenantId: string, keyId: string, at: Date, tx: DbOrTx = db): Promise<boolean> {
      const rows = await tx
        .update(apiKeys)
        .set({ expiresAt: sql`least(coalesce(${apiKeys.expiresAt}, ${at.toISOString()}::timestamptz), ${at.toISOString()}::timestamptz)` })
        .where(and(eq(apiKeys.tenantId, tenantId), eq(apiKeys.id, keyId), isNull(apiKeys.revokedAt)))
        .returning({ id: apiKeys.id });
      return rows.length > 0;
    },
    async touchApiKey(tenantId: string, keyId: string, at: Date, tx: DbOrTx = db): Promise<void> {
      await tx.update(apiKeys).set({ lastUsedAt: at }).where(and(eq(apiKeys.tenantId, tenantId), eq(apiKeys.id, keyId)));
    },
    async revokeApiKey(tenantId: string, keyId: string, at: Date, tx: DbOrTx = db): Promise<boolean> {
      const rows = await tx
        .update(apiKeys)
        .set({ revokedAt: at })
        .where(and(eq(apiKeys.tenantId, tenantId), eq(apiKeys.id, keyId), isNull(apiKeys.revokedAt)))
        .returning({ id: apiKeys.id });
      return rows.length > 0;
    },
  };
}

export type TenantsRepo = ReturnType<typeof createTenantsRepo>;
