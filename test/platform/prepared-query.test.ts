import { and, eq, isNull, sql, type SQL } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { columnsWithTotal } from '../../src/platform/db/counted-page.js';
import { preparedQuery, preparedSql } from '../../src/platform/db/prepared.js';
import { tenants } from '../../src/platform/tenancy/table.js';
import { sessions } from '../../src/modules/auth/table.js';
import { users, type UserRow } from '../../src/modules/users/table.js';
import { rowInsertTemplate, runTemplateWrite, updateTemplate, writeTemplate, writeTogether, writeTogetherReturning, type TemplateCondition } from '../../src/platform/db/write-together.js';
import { newId } from '../../src/platform/clock.js';
import { createHarness, usingPostgres, type Harness } from '../helpers/harness.js';

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

  it('answers the rows drizzle itself maps: the same keys in the same order, nulls, dates, JSON, counts, and joins nested', async () => {
    const userId = await h.createUser();
    await h.tokenFor(userId);
    const tenantId = h.tenant.tenantId;
    const queries = {
      // A user's columns (timestamps, booleans, nulls) and a window count mapped with Number.
      page: (q: typeof h.database.db) => q.select(columnsWithTotal(users)).from(users).where(eq(users.tenantId, sql.placeholder('tenantId'))).limit(5),
      // A JSON column.
      tenant: (q: typeof h.database.db) => q.select().from(tenants).where(eq(tenants.id, sql.placeholder('tenantId'))),
      // A join: drizzle nests each table's row under its name (its own mapping stays).
      joined: (q: typeof h.database.db) =>
        q.select().from(users).leftJoin(sessions, and(eq(sessions.tenantId, users.tenantId), eq(sessions.userId, users.id))).where(eq(users.tenantId, sql.placeholder('tenantId'))),
      // Picked and renamed fields, one an SQL expression.
      picked: (q: typeof h.database.db) => q.select({ who: users.email, at: users.createdAt, n: sql<number>`1 + 1`.mapWith(Number) }).from(users).where(eq(users.tenantId, sql.placeholder('tenantId'))),
    };
    for (const [name, build] of Object.entries(queries)) {
      const prepared = preparedQuery<unknown[], { tenantId: string }>(h.database.db, `test_prepared_map_${name}`, build as never);
      const mine = await prepared({ tenantId });
      const drizzles = await (build(h.database.db) as unknown as { execute(p: object): Promise<unknown[]> }).execute({ tenantId });
      expect(mine.length, name).toBeGreaterThan(0);
      expect(mine, name).toEqual(drizzles);
      expect(mine.map((row) => Object.keys(row as object)), name).toEqual(drizzles.map((row) => Object.keys(row as object)));
    }
    const [page] = (await preparedQuery<Array<Record<string, unknown>>, { tenantId: string }>(h.database.db, 'test_prepared_map_types', queries.page as never)({ tenantId }));
    expect(page!.createdAt).toBeInstanceOf(Date);
    expect(typeof page!.total).toBe('number');
    expect(page!.fullName).toBeNull();
  });
});

describe('preparedSql', () => {
  it('builds its statement once and runs it with each call\'s values, on the database or in a transaction', async () => {
    const first = await h.createUser();
    const second = await h.createUser();
    let builds = 0;
    const nameOf = preparedSql<{ tenantId: string; id: string }>('test_prepared_sql', () => {
      builds += 1;
      return sql`select ${users.id} as id, coalesce(${users.fullName}, 'none') as name from ${users} where ${users.tenantId} = ${sql.placeholder('tenantId')} and ${users.id} = ${sql.placeholder('id')}`;
    });
    const db = h.database.db;
    expect((await nameOf({ tenantId: h.tenant.tenantId, id: first }, db)).rows).toEqual([{ id: first, name: 'none' }]);
    expect((await nameOf({ tenantId: h.tenant.tenantId, id: second }, db)).rows).toEqual([{ id: second, name: 'none' }]);
    const rolledBack = new Error('roll back');
    await expect(
      db.transaction(async (tx) => {
        await tx.update(users).set({ fullName: 'Uncommitted Name' }).where(and(eq(users.tenantId, h.tenant.tenantId), eq(users.id, second)));
        expect((await nameOf({ tenantId: h.tenant.tenantId, id: second }, tx)).rows).toEqual([{ id: second, name: 'Uncommitted Name' }]);
        throw rolledBack;
      }),
    ).rejects.toBe(rolledBack);
    expect((await nameOf({ tenantId: h.tenant.tenantId, id: second }, db)).rows).toEqual([{ id: second, name: 'none' }]);
    // Another tenant's id finds nothing: the values are the call's, not the first call's.
    expect((await nameOf({ tenantId: '00000000-0000-7000-8000-000000000000', id: first }, db)).rows).toEqual([]);
    expect(builds).toBe(1);
  });
});

describe('writeTogether of a recurring shape (executeHot)', () => {
  const hotOn = async (tx: Pick<typeof h.database.db, 'execute'>, marker: string) => {
    const result = (await tx.execute(sql`select name, statement from pg_prepared_statements where name like 'hot\_%' and statement like ${`%${marker}%`}`)) as { rows: Array<{ name: string; statement: string }> };
    return result.rows;
  };

  it('runs prepared once its text is hot: one name for the shape, each call with its own values, inside the transaction', async () => {
    const ids = [await h.createUser(), await h.createUser(), await h.createUser(), await h.createUser()];
    const tenantId = h.tenant.tenantId;
    const db = h.database.db;
    const rename = (on: typeof db, id: string, fullName: string) => on.update(users).set({ fullName }).where(and(eq(users.tenantId, tenantId), eq(users.id, id)));
    await db.transaction(async (tx) => {
      for (const [i, id] of ids.entries()) await writeTogether(tx, [rename(tx, id, `Name ${i}`), sql`select ${'hot-shape-test'}::text`]);
      // One connection: the transaction's. PGlite runs every statement unnamed (as drizzle does there).
      const named = await hotOn(tx, 'update "users" set "full_name"');
      if (usingPostgres) expect(named).toHaveLength(1);
      else expect(named).toEqual([]);
    });
    for (const [i, id] of ids.entries()) {
      const [row] = await db.select({ fullName: users.fullName }).from(users).where(and(eq(users.tenantId, tenantId), eq(users.id, id)));
      expect(row?.fullName).toBe(`Name ${i}`);
    }
  });

  it('names a bounded number of texts: 80 shapes run three times each leave at most 64 prepared', async () => {
    const userId = await h.createUser();
    const db = h.database.db;
    await db.transaction(async (tx) => {
      for (let round = 0; round < 3; round++) {
        for (let shape = 0; shape < 80; shape++) {
          await writeTogether(tx, [sql`update ${users} set ${sql.identifier('full_name')} = ${`round ${round}`} where ${users.id} = ${userId} and ${sql.raw(`${shape}`)} >= 0 /* bounded-shape */`]);
        }
      }
      const named = await hotOn(tx, 'bounded-shape');
      if (!usingPostgres) return expect(named).toEqual([]);
      expect(named.length).toBeGreaterThan(0);
      expect(named.length).toBeLessThanOrEqual(64);
    });
    const [row] = await db.select({ fullName: users.fullName }).from(users).where(eq(users.id, userId));
    expect(row?.fullName).toBe('round 2');
  });
});

describe('writeTogetherReturning', () => {
  it("answers the main statement's rows, with the writes in the same statement; a write that fails takes the main one with it", async () => {
    const [a, b] = [await h.createUser(), await h.createUser()];
    const tenantId = h.tenant.tenantId;
    const db = h.database.db;
    // Phones are unique in a tenant: each user's own.
    let phones = 100;
    const fill = (id: string) => sql`update ${users} set ${sql.identifier('phone')} = ${`+141555501${phones++}`} where ${users.tenantId} = ${tenantId} and ${users.id} = ${id} and ${users.phone} is null returning ${users.id}`;
    const rename = (id: string, fullName: string) => db.update(users).set({ fullName }).where(and(eq(users.tenantId, tenantId), eq(users.id, id)));
    // Four calls of one shape: the later ones run prepared on PostgreSQL (executeHot), the same answers.
    for (let round = 0; round < 4; round++) {
      const rows = await writeTogetherReturning(db, [rename(b, `B ${round}`)], fill(a));
      // The field is set by the first call only: the conditional update's outcome is its rows.
      expect(rows).toEqual(round === 0 ? [{ id: a }] : []);
      const [row] = await db.select({ fullName: users.fullName }).from(users).where(and(eq(users.tenantId, tenantId), eq(users.id, b)));
      expect(row?.fullName).toBe(`B ${round}`);
    }
    expect(await writeTogetherReturning(db, [], fill(b))).toEqual([{ id: b }]);

    const c = await h.createUser();
    const failing = sql`insert into ${users} (${sql.identifier('tenant_id')}, ${sql.identifier('id')}) values (${tenantId}, ${a})`; // a's key again
    await expect(writeTogetherReturning(db, [failing], fill(c))).rejects.toThrow();
    const [row] = await db.select({ phone: users.phone }).from(users).where(and(eq(users.tenantId, tenantId), eq(users.id, c)));
    expect(row?.phone).toBeNull();
  });
});

describe('writeTemplate', () => {
  const tenantId = () => h.tenant.tenantId;
  // A rename with a JSON-free text, a timestamp (encoded by its column) and a condition.
  const renameTemplate = writeTemplate<'tenantId' | 'id' | 'fullName' | 'now'>((db, value) =>
    db
      .update(users)
      .set({ fullName: value('fullName') as unknown as string, updatedAt: value('now') as unknown as Date })
      .where(and(eq(users.tenantId, value('tenantId')), eq(users.id, value('id')), isNull(users.phone)))
      .returning({ id: users.id }),
  );
  const insertSession = rowInsertTemplate(sessions);

  it("gives the text and parameters drizzle's own build gives for the same values", () => {
    const db = h.database.db;
    const { dialect } = db as unknown as { dialect: { sqlToQuery(s: SQL): { sql: string; params: unknown[] } } };
    // The text and the parameters (the type hints drizzle adds are not sent by either driver).
    const query = (s: SQL) => {
      const { sql: text, params } = dialect.sqlToQuery(s);
      return { text, params };
    };
    const now = new Date('2026-11-28T10:00:00.123Z');
    const row = { tenantId: tenantId(), id: '01a22345-5f31-742a-a890-fcdb80895b32', userId: '01a22345-5f31-742a-a890-fcdb80895b33', createdAt: now, revokedAt: null, revokeReason: null, ip: '10.0.0.1', userAgent: 'agent', actor: null };
    expect(query(insertSession(db, row).getSQL())).toEqual(query(db.insert(sessions).values(row).getSQL()));
    const rename = renameTemplate(db, { tenantId: tenantId(), id: row.id, fullName: 'A', now });
    const drizzles = query(
      db.update(users).set({ fullName: 'A', updatedAt: now }).where(and(eq(users.tenantId, tenantId()), eq(users.id, row.id), isNull(users.phone))).returning({ id: users.id }).getSQL(),
    );
    expect(query(rename.getSQL())).toEqual(drizzles);
    // The parameters as the driver takes them: the timestamp encoded by its column.
    expect(rename.values).toEqual(['A', now.toISOString(), tenantId(), row.id]);
  });

  it('refuses a missing value (a NULL is said, not assumed)', () => {
    expect(() => renameTemplate(h.database.db, { tenantId: tenantId(), id: 'x', fullName: undefined, now: new Date() })).toThrow(/no value for "fullName"/);
  });

  it('runs alone, together with other templates (put together without drizzle), and mixed with a built write; all in one statement', async () => {
    const db = h.database.db;
    const [a, b, c] = [await h.createUser(), await h.createUser(), await h.createUser()];
    const now = new Date();
    const session = (userId: string) => ({ tenantId: tenantId(), id: newId(), userId, createdAt: now, revokedAt: null, revokeReason: null, ip: null, userAgent: null, actor: null });
    const sessionsOf = async (userId: string) => (await db.select().from(sessions).where(and(eq(sessions.tenantId, tenantId()), eq(sessions.userId, userId)))).length;
    const nameOf = async (id: string) => (await db.select({ fullName: users.fullName }).from(users).where(and(eq(users.tenantId, tenantId()), eq(users.id, id))))[0]?.fullName;

    expect(await runTemplateWrite(db, renameTemplate(db, { tenantId: tenantId(), id: a, fullName: 'Alone', now }))).toEqual([{ id: a }]);
    expect(await nameOf(a)).toBe('Alone');

    // Four rounds of one shape: the later ones run prepared on PostgreSQL, with each round's values.
    for (let round = 0; round < 4; round++) {
      const rows = await writeTogetherReturning(db, [insertSession(db, session(b)), insertSession(db, session(b))], renameTemplate(db, { tenantId: tenantId(), id: b, fullName: `B ${round}`, now }));
      expect(rows).toEqual([{ id: b }]);
      expect(await nameOf(b)).toBe(`B ${round}`);
      expect(await sessionsOf(b)).toBe(2 * (round + 1));
    }
    await writeTogether(db, [insertSession(db, session(c)), db.update(users).set({ fullName: 'Mixed' }).where(and(eq(users.tenantId, tenantId()), eq(users.id, c)))]);
    expect([await nameOf(c), await sessionsOf(c)]).toEqual(['Mixed', 1]);
    // A built write whose text holds a `$n` of its own (in a literal) is not cut there: drizzle builds the whole statement.
    const [a2] = [await h.createUser()];
    await writeTogether(db, [insertSession(db, session(a2)), db.update(users).set({ fullName: sql`'costs $1 and $2'` }).where(and(eq(users.tenantId, tenantId()), eq(users.id, a2)))]);
    expect([await nameOf(a2), await sessionsOf(a2)]).toEqual(['costs $1 and $2', 1]);
    expect(await writeTogetherReturning(db, [db.update(users).set({ fullName: sql`'$9'` }).where(and(eq(users.tenantId, tenantId()), eq(users.id, c)))], renameTemplate(db, { tenantId: tenantId(), id: a2, fullName: 'Later', now }))).toEqual([{ id: a2 }]);
    expect([await nameOf(a2), await nameOf(c)]).toEqual(['Later', '$9']);

    // A write that fails takes the others with it: the same session's key twice.
    const twice = session(c);
    await expect(writeTogether(db, [insertSession(db, twice), insertSession(db, twice)])).rejects.toThrow();
    await expect(writeTogetherReturning(db, [insertSession(db, twice), insertSession(db, twice)], renameTemplate(db, { tenantId: tenantId(), id: c, fullName: 'Never', now }))).rejects.toThrow();
    expect([await nameOf(c), await sessionsOf(c)]).toEqual(['$9', 1]);
  });
});

describe('updateTemplate', () => {
  const updateUser = updateTemplate(users, ['tenantId', 'id']);
  type NoPhoneKey = 'tenantId' | 'id';
  // A condition of its own values, as the KYC module gives the user's shown status one.
  const noPhone = (value: (name: NoPhoneKey) => SQL.Aliased | ReturnType<typeof sql.placeholder>) =>
    sql`not exists (select 1 from ${users} u2 where u2.tenant_id = ${value('tenantId')} and u2.id = ${value('id')} and u2.phone is not null)`;
  const whenNoPhone = (tenantId: string, id: string): TemplateCondition<NoPhoneKey> => ({ build: noPhone, values: { tenantId, id } });
  const query = (s: SQL) => {
    const { dialect } = h.database.db as unknown as { dialect: { sqlToQuery(s: SQL): { sql: string; params: unknown[] } } };
    const { sql: text, params } = dialect.sqlToQuery(s);
    return { text, params };
  };

  it("gives drizzle's own text and parameters for each set of columns, leaving out undefined and setting null", () => {
    const db = h.database.db;
    const tenantId = h.tenant.tenantId;
    const id = '01a22345-5f31-742a-a890-fcdb80895b40';
    const now = new Date('2026-11-29T10:00:00.123Z');
    const key = and(eq(users.tenantId, tenantId), eq(users.id, id));
    for (const changes of [{ fullName: 'A', updatedAt: now }, { kycStatus: 'approved' as const, updatedAt: now }, { fullName: null, phone: undefined, updatedAt: now }]) {
      const built = db.update(users).set(changes).where(key).getSQL();
      expect(query(updateUser(db, { tenantId, id }, changes).getSQL())).toEqual(query(built));
    }
    // With a condition: the same as drizzle's update with that condition written out.
    const changes = { kycStatus: 'declined' as const, updatedAt: now };
    const written = noPhone((name) => (name === 'tenantId' ? sql`${tenantId}` : sql`${id}`) as never);
    expect(query(updateUser(db, { tenantId, id }, changes, whenNoPhone(tenantId, id)).getSQL())).toEqual(query(db.update(users).set(changes).where(and(eq(users.tenantId, tenantId), eq(users.id, id), written)).getSQL()));
    expect(() => updateUser(db, { tenantId, id }, { phone: undefined })).toThrow(/no column to set/);
  });

  it('changes only the row of its key, only where the condition holds, with each call its own values', async () => {
    const db = h.database.db;
    const tenantId = h.tenant.tenantId;
    const [a, b] = [await h.createUser(), await h.createUser()];
    const read = async (id: string) => (await db.select({ fullName: users.fullName, phone: users.phone }).from(users).where(and(eq(users.tenantId, tenantId), eq(users.id, id))))[0];
    await writeTogether(db, [updateUser(db, { tenantId, id: a }, { fullName: 'First A' }), updateUser(db, { tenantId, id: b }, { fullName: 'First B' })]);
    expect([await read(a), await read(b)]).toEqual([{ fullName: 'First A', phone: null }, { fullName: 'First B', phone: null }]);
    await runTemplateWrite(db, updateUser(db, { tenantId, id: b }, { phone: '+15550100' + String(Date.now() % 1000).padStart(3, '0') }));
    // The same shape with a condition: a has no phone (set), b has one (left as it was).
    for (const id of [a, b]) await runTemplateWrite(db, updateUser(db, { tenantId, id }, { fullName: 'Second' }, whenNoPhone(tenantId, id)));
    expect((await read(a))?.fullName).toBe('Second');
    expect((await read(b))?.fullName).toBe('First B');
    // Another tenant's key changes nothing here.
    await runTemplateWrite(db, updateUser(db, { tenantId: newId(), id: a }, { fullName: 'Elsewhere' }));
    expect((await read(a))?.fullName).toBe('Second');
  });
});
