import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents } from '../../src/modules/audit/table.js';
import { credentials, oneTimeSecrets } from '../../src/modules/auth/table.js';
import { toUserDto } from '../../src/modules/users/service.js';
import { users } from '../../src/modules/users/table.js';
import { mailOutbox } from '../../src/platform/mail/table.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { outbox } from '../helpers/outbox.js';
import { statementsDuring } from '../helpers/statements.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => h.close());

const signUp = (email: string, password = 'a sign-up passphrase') =>
  h.inject({ method: 'POST', url: '/auth/email', headers: { 'x-tenant-id': h.tenant.tenantId }, payload: { email, password, fullName: ' Writes Test ' } });

describe('sign-up writes', () => {
  it('writes the user, its event, credential, audit row, verification code, token and mail in one statement, and answers the row as stored', async () => {
    const email = `writes-${randomUUID()}@example.com`;
    const before = await outbox(h, undefined, 'user.created');
    let res!: Awaited<ReturnType<typeof signUp>>;
    const statements = await statementsDuring(h.database, async () => {
      res = await signUp(email);
    });
    expect(res.statusCode).toBe(201);
    // One write; reads of the tenant (resolved per request, possibly cached) may precede it.
    const writes = statements.filter((s) => !/^\s*select\b/i.test(s));
    expect(writes).toHaveLength(1);
    expect(writes[0]).toMatch(/^WITH w0 AS \(insert into "users"/);
    expect(statements.some((s) => /^(begin|commit)\b/i.test(s) || s === 'transaction')).toBe(false);

    const body = res.json();
    expect(body).toEqual(toUserDto((await h.container.users.findRow(h.tenant.tenantId, body.id))!));
    expect(body).toMatchObject({ email, fullName: 'Writes Test', emailVerified: false, role: 'user' });

    const tenantId = h.tenant.tenantId;
    const [cred] = await h.database.db.select().from(credentials).where(and(eq(credentials.tenantId, tenantId), eq(credentials.userId, body.id)));
    expect(cred!.passwordHash).toMatch(/^\$argon2id\$/);
    const audit = await h.database.db.select().from(auditEvents).where(and(eq(auditEvents.tenantId, tenantId), eq(auditEvents.subjectUserId, body.id)));
    expect(audit.map((a) => a.type)).toEqual(['user.registered']);
    const secrets = await h.database.db.select().from(oneTimeSecrets).where(and(eq(oneTimeSecrets.tenantId, tenantId), eq(oneTimeSecrets.userId, body.id)));
    expect(secrets.map((s) => s.purpose).sort()).toEqual(['email_verify_code', 'email_verify_token']);
    const mail = await h.database.db.select().from(mailOutbox).where(and(eq(mailOutbox.tenantId, tenantId), eq(mailOutbox.to, email)));
    expect(mail).toHaveLength(1);
    expect(mail[0]!.subject).toMatch(/confirm your email/i);
    const events = (await outbox(h, undefined, 'user.created')).slice(before.length);
    expect(events.filter((e) => (e.payload as { userId: string }).userId === body.id)).toHaveLength(1);
  });

  it('a taken address is 409 and writes nothing of the second attempt', async () => {
    const email = `taken-${randomUUID()}@example.com`;
    expect((await signUp(email)).statusCode).toBe(201);
    const tenantId = h.tenant.tenantId;
    const count = async () => ({
      users: (await h.database.db.select().from(users).where(and(eq(users.tenantId, tenantId), eq(users.email, email)))).length,
      mail: (await h.database.db.select().from(mailOutbox).where(and(eq(mailOutbox.tenantId, tenantId), eq(mailOutbox.to, email)))).length,
      registered: (await h.database.db.select().from(auditEvents).where(and(eq(auditEvents.tenantId, tenantId), eq(auditEvents.type, 'user.registered')))).length,
      created: (await outbox(h, undefined, 'user.created')).length,
    });
    const before = await count();
    const again = await signUp(email.toUpperCase(), 'another sign-up passphrase');
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe('USER_EMAIL_TAKEN');
    expect(before).toMatchObject({ users: 1, mail: 1 });
    expect(await count()).toEqual(before);
  });

  it('login reads the user with its credential in one statement, then writes the session, its token and audit row in one more', async () => {
    const email = `login-reads-${randomUUID()}@example.com`;
    expect((await signUp(email, 'a login passphrase')).statusCode).toBe(201);
    let res!: Awaited<ReturnType<typeof h.inject>>;
    const statements = await statementsDuring(h.database, async () => {
      res = await h.inject({ method: 'POST', url: '/auth/email/login', headers: { 'x-tenant-id': h.tenant.tenantId }, payload: { email: email.toUpperCase(), password: 'a login passphrase' } });
    });
    expect(res.statusCode).toBe(201);
    // The tenant's own read (resolved per request, possibly cached) aside.
    const own = statements.filter((s) => !/\bfrom "tenants"/.test(s));
    expect(own).toHaveLength(2);
    expect(own[0]).toMatch(/^select .* from "users" left join "credentials" on/);
    expect(own[1]).toMatch(/^WITH w0 AS \(insert into "sessions"/);
  });
});

