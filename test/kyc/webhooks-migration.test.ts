import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runMigrations } from '../../src/platform/db/migrate.js';
import { databaseBefore, type DatabaseBefore } from '../helpers/migrations.js';

/**
 * The migration that moved kyc_webhooks' dedupe into inbound_webhooks: the rows received before
 * it are carried over with their raw bytes, under the id idv-a's definition gives a delivery
 * (`sha256:<digest of the raw body>`), and the table is gone. On a database of its own, of the pass's kind.
 */
const work = mkdtempSync(join(tmpdir(), 'bastion-kyc-webhooks-migration-'));
let before: DatabaseBefore | undefined;
afterAll(async () => {
  await before?.close();
  rmSync(work, { recursive: true, force: true });
});

describe('kyc_webhooks -> inbound_webhooks migration', () => {
  it('carries every row over (event id, raw bytes, time) and drops the table', async () => {
    before = await databaseBefore(work, 'DROP TABLE "kyc_webhooks"');
    const { database, run } = before;
    const tenant = crypto.randomUUID();
    await run(`insert into tenants (id, name) values ($1, 'migrated')`, [tenant]);
    const at = new Date('2026-01-02T03:04:05Z');
    await run(
      `insert into kyc_webhooks (tenant_id, id, provider, kind, digest, kyc_id, outcome, raw_body, received_at) values
       ($1, $2, 'idv-a', 'decision', 'aa11', null, 'applied', 'eyJhIjoxfQ==', $4), ($1, $3, 'idv-b', 'result', 'bb22', null, 'replay', null, $4)`,
      [tenant, crypto.randomUUID(), crypto.randomUUID(), at.toISOString()],
    );

    await runMigrations(database, { sandboxes: true });
    const rows = await run(`select kind, provider, event_id, raw_body, received_at from inbound_webhooks where tenant_id = $1 order by provider`, [tenant]);
    expect(rows.rows).toEqual([
      { kind: 'idv', provider: 'idv-a', event_id: 'sha256:aa11', raw_body: 'eyJhIjoxfQ==', received_at: at },
      { kind: 'idv', provider: 'idv-b', event_id: 'sha256:bb22', raw_body: null, received_at: at },
    ]);
    expect((await run(`select table_name from information_schema.tables where table_name = 'kyc_webhooks'`)).rows).toEqual([]);
  }, 300_000);
});
