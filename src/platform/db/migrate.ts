import { packageRoot } from './package-root.js';
import { join } from 'node:path';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import type { Database } from './client.js';

export { packageRoot };
export const migrationsFolder = join(packageRoot(), 'drizzle');
/** The sandboxes' tables (schema `sandbox`); their journal is `sandbox.__drizzle_migrations`. */
export const sandboxMigrationsFolder = join(packageRoot(), 'drizzle-sandboxes');
const sandboxMigrations = { migrationsFolder: sandboxMigrationsFolder, migrationsSchema: 'sandbox' };

export interface MigrationOptions {
  /**
   * Config `sandboxes`: the schema `sandbox` is created and migrated only when on. The product's
   * migrations run first either way (drizzle/0024 takes the old sandbox tables out of public).
   */
  sandboxes: boolean;
}

// Arbitrary constant: serialises migrations of several instances starting on one PostgreSQL.
const MIGRATION_LOCK = 0x62617374;

export async function runMigrations(database: Database, options: MigrationOptions): Promise<void> {
  if (database.pglite) {
    const db = drizzlePglite(database.pglite);
    await migratePglite(db, { migrationsFolder });
    if (options.sandboxes) await migratePglite(db, sandboxMigrations);
    return;
  }
  const pool = database.pool;
  if (!pool) throw new Error('database has neither a pool nor an embedded instance');
  const client = await pool.connect();
  try {
    await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      const db = drizzlePg(client);
      await migratePg(db, { migrationsFolder });
      if (options.sandboxes) await migratePg(db, sandboxMigrations);
    } finally {
      await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    }
  } finally {
    client.release();
  }
}
