import { integer, jsonb, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { tenants } from '../tenancy/table.js';

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * A tenant's settings for one provider of one kind (custody, transfers, ...): where the real
 * provider is (`base_url`; null = the built-in sandbox), its public settings, and its secrets
 * sealed together by the SecretBox (bound to tenant, kind and provider).
 */
export const providerSettings = pgTable(
  'provider_settings',
  {
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    kind: text('kind').notNull(),
    provider: text('provider').notNull(),
    baseUrl: text('base_url'),
    settings: jsonb('settings').$type<Record<string, string>>().notNull(),
    secretsSealed: text('secrets_sealed'),
    /**
     * Secrets carried over by a migration from a provider's former table, each still sealed
     * under that provider's former context (ProviderSpec.legacyContext): the first read opens
     * them and seals them again into `secrets_sealed`.
     */
    legacySecrets: jsonb('legacy_secrets').$type<Record<string, string>>(),
    /** Raised by every write (configure, useSandbox, a sandbox's first credentials): the providers service caches a tenant's adapter per version. */
    version: integer('version').notNull().default(1),
    createdAt: ts('created_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.tenantId, t.kind, t.provider] })],
);
