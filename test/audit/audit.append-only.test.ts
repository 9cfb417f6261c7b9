import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgErrorInfo } from '../../src/platform/db/pg-errors.js';
import { createHarness, type Harness } from '../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h.close());

async function refused(statement: ReturnType<typeof sql>): Promise<void> {
  const error = await h.database.db.execute(statement).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, 'the database accepted the statement').toBeDefined();
  expect(pgErrorInfo(error)?.code).toBe('42501');
  const messages = [error as Error, (error as { cause?: Error }).cause].map((e) => e?.message ?? '').join(' ');
  expect(messages).toContain('audit_events is append-only');
}

describe('audit_events is append-only in the database', () => {
  it('refuses UPDATE, DELETE and TRUNCATE, and the row is unchanged', async () => {
    const t = await h.newTenant();
    const id = await h.container.audit.record(undefined, t.tenantId, { type: 'login.succeeded', actorType: 'system', details: { n: 1 } });

    await refused(sql`update audit_events set type = 'login.failed' where tenant_id = ${t.tenantId} and id = ${id}`);
    await refused(sql`delete from audit_events where tenant_id = ${t.tenantId} and id = ${id}`);
    await refused(sql`delete from audit_events where false`);
    // Inside a transaction, so even a broken trigger could not empty a shared test database.
    await expect(
      h.database.db.transaction(async (tx) => {
        await tx.execute(sql`truncate audit_events`);
      }),
    ).rejects.toSatisfy((e: unknown) => pgErrorInfo(e)?.code === '42501');

    const res = await h.inject({ method: 'GET', url: '/audit-events', headers: h.keyHeaders(t) });
    expect(res.json()).toMatchObject({ total: 1, data: [{ id, type: 'login.succeeded', details: { n: 1 } }] });
  });
});
