import { sql } from 'drizzle-orm';
import { index, jsonb, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';

export const tenants = pgTable(
  'tenants',
  {
    id: uuid('id').primaryKey(),
    name: text('name').notNull(),
    /** Tenant-level settings (app URL for mail links, provider configuration, ...). */
    settings: jsonb('settings').$type<Record<string, unknown>>().notNull().default(sql`'{}'::jsonb`),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('tenants_name_unique').on(t.name)],
);

export const apiKeys = pgTable(
  'api_keys',
  {
    id: uuid('id').primaryKey(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    /** SHA-256 of the secret part, hex. The secret itself is never stored. */
    secretHash: text('secret_hash').notNull(),
    name: text('name'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }),
    /** After this instant the key is refused (an expiry chosen at creation, or a rotation's overlap). */
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }),
    /** What the key may call (src/platform/http/key-scopes.ts); null: everything (`all`), as every older key. */
    scopes: jsonb('scopes').$type<string[]>(),
    /** The last request with the key, written at most once a minute per key and instance. */
    lastUsedAt: timestamp('last_used_at', { withTimezone: true, mode: 'date' }),
    /** The key this one replaced (rotation). */
    rotatedFrom: uuid('rotated_from'),
  },
  (t) => [index('api_keys_tenant_idx').on(t.tenantId, t.id)],
);

export type TenantRow = typeof tenants.$inferSelect;
export type ApiKeyRow = typeof apiKeys.$inferSelect;
