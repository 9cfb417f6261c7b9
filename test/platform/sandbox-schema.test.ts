import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { is } from 'drizzle-orm';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import { getTableConfig, PgTable } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { ownPostgresDatabase } from '../helpers/own-database.js';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/platform/db/client.js';
import { runMigrations } from '../../src/platform/db/migrate.js';
import * as businessProfileA from '../../src/sandboxes/business-profile-a/table.js';
import * as custodyA from '../../src/sandboxes/custody-a/table.js';
import * as custodyB from '../../src/sandboxes/custody-b/table.js';
import * as plaid from '../../src/sandboxes/plaid/table.js';
import { usingPostgres } from '../helpers/harness.js';
import { emptyEmbeddedDatabase, migrationsBefore } from '../helpers/migrations.js';

/**
 * The sandboxes' tables live in the schema `sandbox`, created only while sandboxes are on; a
 * database migrated before they moved (its sandbox tables in public) keeps its sandbox rows.
 * Each case migrates a new database: a new DATA_DIR or an empty embedded database, or a new database on the PostgreSQL server.
 */
const sandboxTables = [businessProfileA, custodyA, custodyB, plaid]
  .flatMap((m) => Object.values(m))
  .filter((t): t is PgTable => is(t, PgTable))
  .map((t) => getTableConfig(t));

const work = mkdtempSync(join(tmpdir(), 'bastion-sandbox-schema-'));
const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  rmSync(work, { recursive: true, force: true });
});

interface Fresh {
  database: Database;
  query(sql: string, params?: unknown[]): Promise<Record<string, unknown>[]>;
  /** Migrates with the migrations up to, not including, the one holding `marker`. */
  migrateBefore(marker: string): Promise<void>;
}

let serial = 0;
/**
 * A new database. `newDataDir`: on the embedded database, a new DATA_DIR as the service opens one
 * (a copy of the build's template, which holds the product's migrations); otherwise an empty one
 * (emptyEmbeddedDatabase), for the upgrades that start from older migrations.
 */
async function freshDatabase(options: { newDataDir?: boolean } = {}): Promise<Fresh> {
  serial += 1;
  if (!usingPostgres) {
    const database = options.newDataDir ? await openDatabase({ dataDir: mkdtempSync(join(work, 'data-')) }) : await emptyEmbeddedDatabase();
    cleanups.push(() => database.close());
    return {
      database,
      query: async (sql, params = []) => (await database.pglite!.query<Record<string, unknown>>(sql, params)).rows,
      migrateBefore: (marker) => migratePglite(drizzlePglite(database.pglite!), { migrationsFolder: migrationsBefore(join(work, String(serial)), marker) }),
    };
  }
  const own = await ownPostgresDatabase(process.env.DATABASE_URL!, 'sbx');
  const database = await openDatabase({ databaseUrl: own.url, poolSize: 2 });
  cleanups.push(async () => {
    await database.close();
    await own.drop();
  });
  return {
    database,
    query: async (sql, params = []) => (await database.pool!.query(sql, params)).rows as Record<string, unknown>[],
    migrateBefore: async (marker) => {
      const client = await database.pool!.connect();
      try {
        await migratePg(drizzlePg(client), { migrationsFolder: migrationsBefore(join(work, String(serial)), marker) });
      } finally {
        client.release();
      }
    },
  };
}

async function tablesIn(fresh: Fresh, schema: string): Promise<string[]> {
  const rows = await fresh.query(`select table_name from information_schema.tables where table_schema = $1 order by table_name`, [schema]);
  return rows.map((r) => String(r.table_name));
}

async function schemaExists(fresh: Fresh, schema: string): Promise<boolean> {
  return (await fresh.query(`select 1 from information_schema.schemata where schema_name = $1`, [schema])).length === 1;
}

const MOVE_MARKER = 'SET SCHEMA sandbox';
const names = sandboxTables.map((t) => t.name).sort();

describe('the sandboxes apart from the product', () => {
  it('every sandbox table is declared in the schema sandbox', () => {
    expect(names).toHaveLength(23);
    expect(sandboxTables.every((t) => t.schema === 'sandbox')).toBe(true);
  });

  it('with sandboxes off, a new database holds no sandbox table and no schema sandbox', async () => {
    const fresh = await freshDatabase({ newDataDir: true });
    await runMigrations(fresh.database, { sandboxes: false });
    const publicTables = await tablesIn(fresh, 'public');
    expect(publicTables).toContain('tenants');
    expect(publicTables.filter((t) => names.includes(t) || t.includes('sandbox'))).toEqual([]);
    expect(await schemaExists(fresh, 'sandbox')).toBe(false);
  }, 120_000);

  it('with sandboxes on, the sandbox tables are in the schema sandbox and none in public', async () => {
    const fresh = await freshDatabase({ newDataDir: true });
    await runMigrations(fresh.database, { sandboxes: true });
    expect((await tablesIn(fresh, 'sandbox')).filter((t) => t !== '__drizzle_migrations')).toEqual(names);
    expect((await tablesIn(fresh, 'public')).filter((t) => names.includes(t))).toEqual([]);
    // A second start finds nothing to do.
    await runMigrations(fresh.database, { sandboxes: true });
    expect((await tablesIn(fresh, 'sandbox')).filter((t) => t !== '__drizzle_migrations')).toEqual(names);
  }, 120_000);

  it('an upgrade keeps the sandbox rows written before the move (sandboxes on)', async () => {
    const fresh = await freshDatabase();
    await fresh.migrateBefore(MOVE_MARKER);
    expect(await tablesIn(fresh, 'public')).toEqual(expect.arrayContaining(names));
    const tenant = crypto.randomUUID();
    const now = new Date().toISOString();
    await fresh.query(
      `insert into custody_a_sandbox_clients (api_key, label, public_key_pem, private_key_sealed, created_at) values ('key-1', 'kept', 'pem', 'sealed', $1)`,
      [now],
    );
    await fresh.query(
      `insert into bp_a_sandbox_businesses (tenant_id, id, name, tin_last4, addresses, people, status, tasks, deliveries, created_at, updated_at) values ($1, 'biz-1', 'Kept LLC', '6789', '[]', '[]', 'active', '[]', '[]', $2, $2)`,
      [tenant, now],
    );

    await runMigrations(fresh.database, { sandboxes: true });
    expect((await tablesIn(fresh, 'public')).filter((t) => names.includes(t))).toEqual([]);
    expect((await tablesIn(fresh, 'sandbox')).filter((t) => t !== '__drizzle_migrations')).toEqual(names);
    expect(await fresh.query(`select label from sandbox.custody_a_sandbox_clients`)).toEqual([{ label: 'kept' }]);
    expect(await fresh.query(`select name, tin_last4 from sandbox.bp_a_sandbox_businesses where tenant_id = $1`, [tenant])).toEqual([{ name: 'Kept LLC', tin_last4: '6789' }]);
    // The moved tables kept their keys and indexes: the sandbox's unique label still holds.
    await expect(
      fresh.query(`insert into sandbox.custody_a_sandbox_clients (api_key, label, public_key_pem, private_key_sealed, created_at) values ('key-2', 'kept', 'pem', 'sealed', $1)`, [now]),
    ).rejects.toThrow(/unique|duplicate/i);
  }, 120_000);

  it('an upgrade with sandboxes off takes every sandbox table out of public, moving those with rows aside, and a later start with sandboxes on finds them', async () => {
    const fresh = await freshDatabase();
    await fresh.migrateBefore(MOVE_MARKER);
    const now = new Date().toISOString();
    await fresh.query(`insert into bank_link_sandbox_clients (client_id, secret_hash, created_at) values ('client-kept', 'hash', $1)`, [now]);

    await runMigrations(fresh.database, { sandboxes: false });
    expect((await tablesIn(fresh, 'public')).filter((t) => names.includes(t))).toEqual([]);
    // Only the table holding rows was kept (aside, in the schema sandbox); the empty ones are gone.
    expect(await tablesIn(fresh, 'sandbox')).toEqual(['bank_link_sandbox_clients']);

    await runMigrations(fresh.database, { sandboxes: true });
    expect((await tablesIn(fresh, 'sandbox')).filter((t) => t !== '__drizzle_migrations')).toEqual(names);
    expect(await fresh.query(`select client_id from sandbox.bank_link_sandbox_clients`)).toEqual([{ client_id: 'client-kept' }]);
  }, 120_000);
});
