import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';

const SECRET_EMAIL = 'ada.secret@example.com';

let h: Harness;
beforeAll(async () => {
  h = await createHarness({
    beforeReady: (app) => {
      // Statements that fail in PostgreSQL with the caller's values as parameters.
      const run = (statement: ReturnType<typeof sql>) => async () => {
        await h.database.db.execute(statement);
        return {};
      };
      app.get('/__test/cast', { schema: { hide: true } }, run(sql`select ${SECRET_EMAIL}::int as n`));
      app.get('/__test/nul', { schema: { hide: true } }, run(sql`select length(${`${SECRET_EMAIL}\u0000`}::text) as n`));
      app.get('/__test/unique', { schema: { hide: true } }, async () => {
        // One transaction: one connection, so the temporary table is there for both inserts.
        await h.database.db.transaction(async (tx) => {
          await tx.execute(sql`create temporary table __emails (email text primary key) on commit drop`);
          await tx.execute(sql`insert into __emails (email) values (${SECRET_EMAIL})`);
          await tx.execute(sql`insert into __emails (email) values (${SECRET_EMAIL})`);
        });
        return {};
      });
    },
  });
});
afterAll(async () => h.close());

describe('a failed query is logged without its parameter values', () => {
  for (const route of ['cast', 'nul', 'unique']) {
    it(`${route}: 500 to the client; the log line names the statement and the SQLSTATE, not the values`, async () => {
      const before = h.logs.lines.length;
      const res = await h.inject({ method: 'GET', url: `/__test/${route}` });
      expect(res.statusCode).toBe(500);
      const lines = h.logs.lines.slice(before).filter((line) => line.includes('request failed'));
      expect(lines).toHaveLength(1);
      const line = lines[0]!;
      expect(line).toMatch(/Failed query: (select|insert)/);
      expect(line).toMatch(/"sqlState":"(22P02|22021|23505)"/);
      expect(line).not.toContain('ada.secret');
      expect(line).not.toContain('example.com');
    });
  }
});
