import { pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';

/**
 * Data keys for secrets at rest. Each is a random AES-256 key, stored only wrapped
 * (AES-256-GCM) by the master key. Not tenant-scoped: they protect rows of every tenant.
 */
export const dataKeys = pgTable('data_keys', {
  id: uuid('id').primaryKey(),
  wrappedKey: text('wrapped_key').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});
