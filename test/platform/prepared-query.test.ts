import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { preparedQuery } from '../../src/platform/db/prepared.js';
import { users, type UserRow } from '../../src/modules/users/table.js';
import { createHarness, type Harness } from '../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h.close());

describe('preparedQuery', () => {
  it('is built once; called in a transaction it runs in that transaction, on its connection', async () => {
    const userId = await h.createUser();
    let builds = 0;
    const byId = preparedQuery<UserRow[], { tenantId: string; id: string }>(h.database.db, 'test_prepared_in_tx', (q) => {
      builds += 1;
      return q
        .select()
        .from(users)
        .where(and(eq(users.tenantId, sql.placeholder('tenantId')), eq(users.id, sql.placeholder('id'))))
        .limit(1);
    });
    const params = { tenantId: h.tenant.tenantId, id: userId };
    expect((await byId(params))[0]?.fullName).toBeNull();

    const rolledBack = new Error('roll back');
    await expect(
      h.database.db.transaction(async (tx) => {
        await tx.update(users).set({ fullName: 'Uncommitted Name' }).where(and(eq(users.tenantId, h.tenant.tenantId), eq(users.id, userId)));
        // Only the transaction's own connection sees its uncommitted write.
        expect((await byId(params, tx))[0]?.fullName).toBe('Uncommitted Name');
        expect((await byId(params, tx))[0]?.fullName).toBe('Uncommitted Name');
        throw rolledBack;
      }),
    ).rejects.toBe(rolledBack);

    expect((await byId(params))[0]?.fullName).toBeNull();
    expect(builds).toBe(1);
  });
});
