import { boolean, foreignKey, integer, jsonb, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { tenants } from '../../platform/tenancy/table.js';
import { users } from '../users/table.js';

/** One random salt per identity field of a user, so the root reveals nothing about the values. */
export const identitySalts = pgTable(
  'identity_salts',
  {
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    userId: uuid('user_id').notNull(),
    path: text('path').notNull(),
    /** 32 random bytes, 0x-prefixed hex. */
    salt: text('salt').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [primaryKey({ name: 'identity_salts_pkey', columns: [t.tenantId, t.userId, t.path] })],
);

export interface IdentityEntry {
  path: string;
  value: string;
  salt: string;
  /** keccak256(abi.encode(bytes32 salt, string value)). */
  commitment: string;
}

/** Every root a user has had, with its time: a root anchored on chain earlier still verifies. */
export const identityRoots = pgTable(
  'identity_roots',
  {
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    userId: uuid('user_id').notNull(),
    version: integer('version').notNull(),
    root: text('root').notNull(),
    entries: jsonb('entries').$type<IdentityEntry[]>().notNull(),
    /** StandardMerkleTree.dump(), so a proof needs no rebuild. */
    tree: jsonb('tree').$type<unknown>().notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
    /**
     * This version is known to match the sources: stored by a recompute (every source announces
     * its changes through `identity.changed`, so the latest such version is current until the
     * next one), or found equal to them by a read. Versions stored before the sources all
     * announced (migration 0033) are false: compared with the sources once, at their next read.
     */
    sourcesVerified: boolean('sources_verified').notNull().default(false),
  },
  (t) => [
    primaryKey({ name: 'identity_roots_pkey', columns: [t.tenantId, t.userId, t.version] }),
    // A stored root is a user's: reading one is reading that the user exists.
    foreignKey({ name: 'identity_roots_user_fk', columns: [t.tenantId, t.userId], foreignColumns: [users.tenantId, users.id] }).onDelete('cascade'),
  ],
);

export type IdentityRootRow = typeof identityRoots.$inferSelect;
