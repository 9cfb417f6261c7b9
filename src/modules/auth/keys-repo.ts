import { and, desc, isNull, ne } from 'drizzle-orm';
import type { Db } from '../../platform/db/client.js';
import { signingKeys, type SigningKeyRow } from './table.js';

/**
 * The signing keys' queries. Keys belong to the service, not to a tenant (every tenant's
 * tokens are signed with the current key and verified through one published JWKS), so these
 * are the auth module's only queries without a tenant.
 */
export function createKeysRepo(db: Db) {
  return {
    async listNewestFirst(): Promise<SigningKeyRow[]> {
      return db.select().from(signingKeys).orderBy(desc(signingKeys.createdAt));
    },
    async insert(row: typeof signingKeys.$inferInsert): Promise<void> {
      await db.insert(signingKeys).values(row);
    },
    /** Retires every live key but `keep`; answers the retired kids. */
    async retireAllBut(keep: string, at: Date): Promise<string[]> {
      const rows = await db
        .update(signingKeys)
        .set({ retiredAt: at })
        .where(and(isNull(signingKeys.retiredAt), ne(signingKeys.kid, keep)))
        .returning({ kid: signingKeys.kid });
      return rows.map((r) => r.kid);
    },
  };
}
