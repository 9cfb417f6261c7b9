import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Container } from '../src/container.js';
import { newId } from '../src/platform/clock.js';
import { randomToken, sha256Hex } from '../src/platform/crypto/hash.js';
import type { Db } from '../src/platform/db/client.js';
import { rowCountQuery } from '../src/platform/db/counters-table.js';
import { createAuthRepo } from '../src/modules/auth/repo.js';
import { REFRESH_TOKEN_TTL_MS } from '../src/modules/auth/sessions.js';
import { refreshTokens, sessions } from '../src/modules/auth/table.js';
import { users } from '../src/modules/users/table.js';
import { SESSION_TTL_MS } from '../src/modules/kyc/state.js';
import { kycRecords } from '../src/modules/kyc/table.js';

export interface SeededTenant {
  tenantId: string;
  apiKey: string;
  userCount: number;
  /** Ids of users picked at random through the tenant (cursors, bearer users). */
  sampleIds: string[];
}

export const LOGIN_PASSWORD = 'bench: a long enough passphrase';
const INSERT_CHUNK = 200_000;
const BATCH = 2_000;

/** Email of the n-th bulk user (1-based) of a tenant. */
export const benchEmail = (n: number) => `user${n}@bench.example`;

/** A tenant and its API key through the same code path as `bastion tenant create`. */
export async function createBenchTenant(container: Container, name: string): Promise<{ tenantId: string; apiKey: string }> {
  const created = await container.tenants.createTenant(`${name}-${Date.now()}`);
  return { tenantId: created.tenantId, apiKey: created.apiKey };
}

/**
 * `count` users in bulk SQL (INSERT ... SELECT generate_series), as valid as the service's
 * own rows: UUIDv7 ids in creation order (48-bit millisecond time, version 7, variant 10),
 * normalised unique emails, timestamps. The statement-level triggers of
 * 0001_row_count_triggers.sql keep row_counts exact, as for any insert.
 */
export async function bulkInsertUsers(db: Db, tenantId: string, count: number, log: (line: string) => void): Promise<void> {
  const startMs = Date.now() - count - 60_000;
  for (let from = 1; from <= count; from += INSERT_CHUNK) {
    const to = Math.min(count, from + INSERT_CHUNK - 1);
    await db.execute(sql`
      INSERT INTO users (tenant_id, id, email, full_name, role, email_verified, created_at, updated_at)
      SELECT ${tenantId}::uuid,
             overlay(overlay(substr(lpad(to_hex(${startMs}::bigint + g), 12, '0') || md5(${tenantId} || g::text), 1, 32)
                     placing '7' from 13 for 1) placing substr('89ab', 1 + g % 4, 1) from 17 for 1)::uuid,
             'user' || g || '@bench.example',
             'Bench User ' || g,
             'user',
             true,
             to_timestamp((${startMs}::bigint + g) / 1000.0),
             to_timestamp((${startMs}::bigint + g) / 1000.0)
        FROM generate_series(${from}::int, ${to}::int) AS g`);
    log(`  users ${to.toLocaleString('en')} / ${count.toLocaleString('en')}`);
  }
  await db.execute(sql`ANALYZE users`);
}

/** row_counts must equal count(*), or list totals would lie. */
export async function checkRowCount(db: Db, tenantId: string): Promise<number> {
  const [counter] = await rowCountQuery(db, 'users', tenantId);
  const [actual] = await db.select({ n: sql<string>`count(*)` }).from(users).where(eq(users.tenantId, tenantId));
  const n = Number(actual?.n ?? 0);
  if (Number(counter?.n ?? -1) !== n) throw new Error(`row_counts says ${counter?.n} users, the table holds ${n}`);
  return n;
}

/** Ids of `count` users picked at random among the tenant's bulk users (looked up by email). */
export async function sampleUserIds(db: Db, tenantId: string, userCount: number, count: number): Promise<string[]> {
  const picks = new Set<number>();
  while (picks.size < Math.min(count, userCount)) picks.add(1 + Math.floor(Math.random() * userCount));
  const emails = [...picks].map(benchEmail);
  const ids: string[] = [];
  for (let i = 0; i < emails.length; i += BATCH) {
    const rows = await db
      .select({ id: users.id })
      .from(users)
      .where(and(eq(users.tenantId, tenantId), inArray(users.email, emails.slice(i, i + BATCH))));
    ids.push(...rows.map((r) => r.id));
  }
  return ids.sort(() => Math.random() - 0.5);
}

/** Gives user n°1 a password (argon2id through the service's hasher); returns its email. */
/**
 * A password for the first `count` users of a tenant (one hash, stored for each), so the login
 * load spreads over accounts as real sign-ins do: one account would hit its own limit
 * (LOGIN_FAILURES_PER_ACCOUNT attempts counted before the password is checked).
 */
export async function addLoginPasswords(container: Container, tenantId: string, count: number): Promise<string[]> {
  const hash = await container.passwords.hash(LOGIN_PASSWORD);
  const repo = createAuthRepo(container.database.db);
  const emails: string[] = [];
  for (let n = 1; n <= count; n++) {
    const email = benchEmail(n);
    const user = await container.users.findRowByEmail(tenantId, email);
    if (!user) throw new Error(`login user ${email} missing`);
    await repo.upsertPassword(tenantId, user.id, hash, new Date());
    emails.push(email);
  }
  return emails;
}

/** Access tokens of live sessions, one per user, opened through the session service (as login does). */
export async function mintAccessTokens(container: Container, tenantId: string, userIds: string[]): Promise<string[]> {
  const tokens: string[] = new Array<string>(userIds.length);
  let next = 0;
  const worker = async () => {
    while (next < userIds.length) {
      const i = next++;
      const pair = await container.sessions.start(tenantId, userIds[i]!, 'user', { ip: '127.0.0.1', userAgent: 'bastion-bench' });
      tokens[i] = pair.accessToken;
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return tokens;
}

/**
 * `count` unused refresh tokens, each of its own live session (the rows sessions.start writes,
 * in bulk: minting tens of thousands one transaction at a time would dominate the run).
 */
export async function mintRefreshTokens(db: Db, tenantId: string, userIds: string[], count: number): Promise<string[]> {
  const tokens: string[] = [];
  const now = new Date();
  const expiresAt = new Date(now.getTime() + REFRESH_TOKEN_TTL_MS);
  for (let done = 0; done < count; done += BATCH) {
    const sessionRows: Array<typeof sessions.$inferInsert> = [];
    const tokenRows: Array<typeof refreshTokens.$inferInsert> = [];
    for (let i = done; i < Math.min(count, done + BATCH); i++) {
      const sessionId = newId();
      const token = randomToken(32);
      sessionRows.push({ tenantId, id: sessionId, userId: userIds[i % userIds.length]!, createdAt: now, ip: '127.0.0.1', userAgent: 'bastion-bench' });
      tokenRows.push({ tenantId, id: newId(), sessionId, tokenHash: sha256Hex(token), createdAt: now, expiresAt });
      tokens.push(token);
    }
    await db.insert(sessions).values(sessionRows);
    await db.insert(refreshTokens).values(tokenRows);
  }
  return tokens;
}

/**
 * `count` idv-a KYC attempts of the given users, as POST /kyc leaves them once the person has
 * submitted (provider idv-a, flow session, status submitted, the provider's session id), in
 * bulk: the decision-webhook row decides each of them once.
 */
export async function seedKycAttempts(db: Db, tenantId: string, userIds: string[], count: number): Promise<Array<{ kycId: string; sessionId: string }>> {
  const attempts: Array<{ kycId: string; sessionId: string }> = [];
  const now = new Date();
  const expiresAt = new Date(now.getTime() + SESSION_TTL_MS);
  for (let done = 0; done < count; done += BATCH) {
    const rows: Array<typeof kycRecords.$inferInsert> = [];
    for (let i = done; i < Math.min(count, done + BATCH); i++) {
      const id = newId();
      const sessionId = `bench-${randomToken(12)}`;
      rows.push({
        tenantId, id, userId: userIds[i % userIds.length]!, provider: 'idv-a', providerSessionId: sessionId, sessionUrl: null, flow: 'session',
        status: 'submitted', expiresAt, createdAt: now, updatedAt: now,
      });
      attempts.push({ kycId: id, sessionId });
    }
    await db.insert(kycRecords).values(rows);
  }
  return attempts;
}

/** The tenant's idv-a webhook secret: the sandbox's credentials, made on first use as POST /kyc would. */
export async function idvAWebhookSecret(container: Container, tenantId: string): Promise<string> {
  const config = await container.platform.providerSettings.resolve(tenantId, 'idv', 'idv-a');
  const secret = config.secrets['webhook-secret'];
  if (!secret) throw new Error('idv-a has no webhook secret for the bench tenant');
  return secret;
}
