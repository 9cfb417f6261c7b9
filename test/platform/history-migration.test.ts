import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runMigrations } from '../../src/platform/db/migrate.js';
import { ManualClock } from '../../src/platform/clock.js';
import { createAuditRepo } from '../../src/modules/audit/repo.js';
import { createAuditService } from '../../src/modules/audit/service.js';
import { databaseBefore, type DatabaseBefore } from '../helpers/migrations.js';

/**
 * The migration that moved kyc_audit and accreditation_audit into audit_events (one history
 * store): rows written before it are the objects' histories after it, with the actor spelled
 * as the audit log spells it and the subject user found from the object. It needs a
 * database migrated to just before that migration: one of its own, of the pass's kind.
 */
const work = mkdtempSync(join(tmpdir(), 'bastion-history-migration-'));
let before: DatabaseBefore | undefined;
afterAll(async () => {
  await before?.close();
  rmSync(work, { recursive: true, force: true });
});


describe('history store migration', () => {
  it('moves KYC and accreditation histories into audit_events, tagged with their object', async () => {
    before = await databaseBefore(work, 'DROP TABLE "kyc_audit"');
    const { database, run } = before;
    const tenant = crypto.randomUUID();
    const user = crypto.randomUUID();
    const kycId = crypto.randomUUID();
    const claimId = crypto.randomUUID();
    const key = crypto.randomUUID();
    const t0 = '2026-01-01T00:00:00.000Z';
    const t1 = '2026-01-01T00:01:00.000Z';
    await run(`insert into tenants (id, name) values ($1, 'migrated')`, [tenant]);
    await run(`insert into kyc_records (tenant_id, id, user_id, provider, flow, status, expires_at, created_at, updated_at) values ($1, $2, $3, 'manual', 'manual', 'approved', $4, $4, $4)`, [tenant, kycId, user, t0]);
    await run(
      `insert into kyc_audit (tenant_id, id, kyc_id, action, from_status, to_status, changes, actor_type, actor_id, reason, created_at) values
       ($1, '01900000-0000-7000-8000-000000000001', $2, 'transition', null, 'created', null, 'apiKey', $3, null, $4),
       ($1, '01900000-0000-7000-8000-000000000002', $2, 'update', 'created', 'created', '{"country":{"from":null,"to":"FR"}}'::jsonb, 'user', $5, 'typo', $6),
       ($1, '01900000-0000-7000-8000-000000000003', $2, 'transition', 'created', 'approved', null, 'provider', 'idv-a', 'clear', $6)`,
      [tenant, kycId, key, t0, user, t1],
    );
    await run(`insert into accreditations (tenant_id, id, user_id, type, document_ids, status, created_at, updated_at) values ($1, $2, $3, 'income', '[]'::jsonb, 'approved', $4, $4)`, [tenant, claimId, user, t0]);
    await run(
      `insert into accreditation_audit (tenant_id, id, accreditation_id, from_status, to_status, actor_type, actor_id, reason, created_at) values
       ($1, '01900000-0000-7000-8000-000000000004', $2, null, 'pending', 'user', $3, null, $4),
       ($1, '01900000-0000-7000-8000-000000000005', $2, 'pending', 'approved', 'apiKey', $5, 'verified', $6)`,
      [tenant, claimId, user, t0, key, t1],
    );

    await runMigrations(database, { sandboxes: true });
    const audit = createAuditService({ repo: createAuditRepo(database.db), clock: new ManualClock(new Date()) });

    const kyc = await audit.history(tenant, 'kyc', [kycId]);
    expect(kyc.map((r) => [r.type, r.actorType, r.actorId, r.subjectUserId, r.objectId])).toEqual([
      ['kyc.transition', 'api_key', key, user, kycId],
      ['kyc.update', 'user', user, user, kycId],
      ['kyc.transition', 'provider', 'idv-a', user, kycId],
    ]);
    expect(kyc[1]!.details).toEqual({ from: 'created', to: 'created', changes: { country: { from: null, to: 'FR' } }, reason: 'typo' });
    expect(kyc[2]!.createdAt.toISOString()).toBe(t1);

    const claims = await audit.history(tenant, 'accreditation', [claimId]);
    expect(claims.map((r) => [r.type, r.actorType, r.details])).toEqual([
      ['accreditation.transition', 'user', { from: null, to: 'pending', reason: null }],
      ['accreditation.transition', 'api_key', { from: 'pending', to: 'approved', reason: 'verified' }],
    ]);
    // They are in the audit log like any event (and counted there), and the old tables are gone.
    const listed = await audit.list(tenant, {}, { limit: 10, offset: 0 });
    expect(listed.total).toBe(5);
    const tables = await run(`select count(*)::int as n from information_schema.tables where table_name in ('kyc_audit', 'accreditation_audit')`);
    expect((tables.rows[0] as { n: number }).n).toBe(0);
    // A fresh database migrated twice over: slow on a busy machine.
  }, 120_000);
});
