// The ceilings of the plain reads, in a process of their own: the same Fastify and logging as
// the service (LOG_LEVEL, pino with its redaction and serializers, one access line per
// request), and nothing else.
//   GET /bare     a constant small JSON body: what Fastify alone costs per request.
//   GET /pk/:id   the primary-key SELECT of GET /users/me (the users repo's findById), through
//                 the same driver and pool (openDatabase: drizzle on a pg pool of the same size).
//   POST /hmac     the check of a signed idv-a webhook and nothing else: the raw JSON body kept,
//                  HMAC-SHA256 under BENCH_HMAC_SECRET compared in constant time with
//                  x-hmac-signature (the service's own verifyBodySignature), the body parsed,
//                  201 with an acknowledgement (401 when the signature does not match).
//   POST /hmac-write  the same check, then the least a decision must make durable, in one
//                  transaction: the claim of the delivery's id, the attempt's row read under its
//                  lock (the real kyc_records row; nothing of it changes), and one statement
//                  writing the change, its audit entry and its event (to bench_bound_* tables of
//                  this server's own, emptied at its start). No settings read, no state machine,
//                  no identity root: what bounds a webhook that records a decision. The load
//                  repeats its bodies, so each request's claim is made new (its id and a sequence
//                  number): every request pays a first delivery's writes.
//   GET /kyc-page/:userId  what bounds GET /kyc/attempts: the same one statement the service runs
//                  for a user's own first page (the kyc repo's userPageWithDue: the page, its
//                  total and the due count), the same DTOs (toKycDto, countedPage) and the same
//                  response schema, and nothing else (no token, no tenant, no expiry check).
//   GET /siwe/challenge, POST /siwe/register  (BENCH_SIWE_BOUND set) what bounds the SIWE row:
//                  the challenge stores a nonce (one insert) and answers the EIP-4361 message; the
//                  registration reads the nonce, checks it names this user, domain, URI and chain
//                  and has not expired, verifies the signature with viem's verifySiweMessage over
//                  a local EDR chain of this server's own (as the service does, ERC-6492 eth_call
//                  included) and reads the address's code, then in one transaction consumes the
//                  nonce and writes the wallet, its audit entry and its event in one statement
//                  (bench_bound_* tables). No session, no user row, no identity root.
//   POST /custody-bound/...  (BENCH_CUSTODY_BOUND set) what bounds the custody-a row: see
//                  bench/custody-bound.ts.
//   POST /login-bound  (BENCH_LOGIN_BOUND set) what bounds the login row: the user and its
//                  credential by email (the service's own prepared statement, users.byEmailWith),
//                  the password verified through a password pool of this server's own (the
//                  service's: argon2id at its parameters, its workers at their niceness), then a
//                  session with its refresh token's hash and its audit entry in one statement
//                  (bench_bound_* tables) and an Ed25519 access token signed; 201 with the pair,
//                  401 for a wrong password. No account limiter, no second-factor check, no
//                  tenant, no role.
//   POST /signup-bound  (BENCH_SIGNUP_BOUND set) what bounds a sign-up (bench:peer, goal 1): the
//                  password checked against the service's policy (length, common passwords),
//                  hashed through a password pool of this server's own (the service's), then in
//                  one statement the user (unique by tenant and email), its credential, the
//                  verification link's and code's hashes, and three log rows: the audit entry,
//                  the event and the verification mail (the service's content and renderMail);
//                  201 with the user, 409 when the email is taken. After answering, the mail is
//                  sent as the service's worker sends it with no SMTP_URL (its file transport:
//                  an RFC 822 file), without the queue's claim and record. No tenant check, no
//                  settings, no rate limit, no mail cap (bench_bound_* tables).
//                  POST /signup-bound-unsent: the same with the mail left in its row, unsent.
import { createHash, generateKeyPairSync, randomBytes, randomInt, randomUUID, sign } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import type { Hex } from 'viem';
import { createSiweMessage, parseSiweMessage, verifySiweMessage } from 'viem/siwe';
import { createLocalEvmChain } from '../src/providers/evm-chain/local/edr.js';
import Fastify, { type FastifyBaseLogger, type FastifyReply, type FastifyRequest } from 'fastify';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/platform/db/client.js';
import { AccessLogController } from '../src/platform/log/access-log.js';
import { createLogger } from '../src/platform/log/logger.js';
import { createUsersRepo } from '../src/modules/users/repo.js';
import { createAuthRepo } from '../src/modules/auth/repo.js';
import { checkPasswordPolicy, createPasswordHasher } from '../src/modules/auth/passwords.js';
import { verificationMailContent } from '../src/modules/auth/verification.js';
import { createFileTransport } from '../src/platform/mail/file-transport.js';
import { renderMail } from '../src/platform/mail/render.js';
import { systemClock } from '../src/platform/clock.js';
import { createKycRepo } from '../src/modules/kyc/repo.js';
import { KycList } from '../src/modules/kyc/schemas.js';
import { toKycDto } from '../src/modules/kyc/service.js';
import { countedPage } from '../src/platform/db/counted-page.js';
import { DEFAULT_PAGE_SIZE } from '../src/platform/http/pagination.js';
import { SIGNATURE_HEADER, verifyBodySignature } from '../src/providers/idv/signature.js';
import { custodyBound } from './custody-bound.js';

const config = loadConfig();
const tenantId = process.env.BENCH_TENANT_ID;
if (!tenantId) throw new Error('BENCH_TENANT_ID is required');

const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.databaseUrl ? undefined : config.dataDir });
const repo = createUsersRepo(database.db);
const logger = createLogger(config.logLevel);
const app = Fastify({ loggerInstance: logger as FastifyBaseLogger, logController: new AccessLogController(logger) });

app.get('/health', async () => ({ status: 'ok' }));
app.get('/bare', async () => ({ id: '0196c2a4-0000-7000-8000-000000000000', email: 'user@bench.example', ok: true }));
app.get<{ Params: { id: string } }>('/pk/:id', async (request, reply) => {
  const row = await repo.findById(tenantId, request.params.id);
  if (!row) return reply.status(404).send({ statusCode: 404 });
  return row;
});
const kycRepo = createKycRepo(database.db);
app.get<{ Params: { userId: string } }>('/kyc-page/:userId', { schema: { response: { 200: KycList } } }, async (request) => {
  const page = { limit: DEFAULT_PAGE_SIZE, offset: 0 };
  const rows = await kycRepo.userPageWithDue(tenantId, request.params.userId, new Date(), page);
  return countedPage(rows, page, () => kycRepo.count(tenantId, { userId: request.params.userId }), toKycDto);
});

/** The audit entries and events the bounds write (the webhook's and the SIWE registration's). */
const BOUND_LOG_TABLE =
  'create table if not exists bench_bound_log (id bigserial primary key, kind text not null, record_id uuid not null, body jsonb not null, created_at timestamptz not null)';

const hmacSecret = process.env.BENCH_HMAC_SECRET;
if (hmacSecret) {
  await app.register(async (scope) => {
    scope.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    scope.post('/hmac', async (request, reply) => {
      const raw = request.body as Buffer;
      const signature = request.headers[SIGNATURE_HEADER];
      if (typeof signature !== 'string' || !verifyBodySignature(raw, signature, hmacSecret)) return reply.status(401).send({ statusCode: 401 });
      const body = JSON.parse(raw.toString('utf8')) as { verification?: { id?: string } };
      return reply.status(201).send({ received: true, applied: true, outcome: `applied ${body.verification?.id ?? ''}` });
    });

    const { db } = database;
    for (const statement of [
      'create table if not exists bench_bound_claims (event_id text primary key, raw_body text not null, received_at timestamptz not null)',
      'create table if not exists bench_bound_records (id uuid primary key, status text not null, reason text, decided_at timestamptz, updated_at timestamptz not null)',
      BOUND_LOG_TABLE,
      'truncate bench_bound_claims, bench_bound_records, bench_bound_log',
    ]) {
      await db.execute(sql.raw(statement));
    }
    let sequence = 0;
    scope.post('/hmac-write', async (request, reply) => {
      const raw = request.body as Buffer;
      const signature = request.headers[SIGNATURE_HEADER];
      if (typeof signature !== 'string' || !verifyBodySignature(raw, signature, hmacSecret)) return reply.status(401).send({ statusCode: 401 });
      const text = raw.toString('utf8');
      const body = JSON.parse(text) as { verification: { id: string; status: string; vendorData: string } };
      const kycId = body.verification.vendorData.split(':')[1] ?? '';
      const now = new Date();
      const outcome = await db.transaction(async (tx) => {
        const claimed = await tx.execute(sql`insert into bench_bound_claims (event_id, raw_body, received_at) values (${`${body.verification.id}:${++sequence}`}, ${text}, ${now}) on conflict do nothing returning event_id`);
        if ((claimed as { rows: unknown[] }).rows.length === 0) return 'replay';
        const found = await tx.execute(sql`select * from kyc_records where tenant_id = ${tenantId} and id = ${kycId} for update`);
        if ((found as { rows: unknown[] }).rows.length === 0) return 'ignored: unknown session';
        const change = JSON.stringify({ kycId, to: body.verification.status });
        await tx.execute(sql`with w0 as (insert into bench_bound_records (id, status, decided_at, updated_at) values (${kycId}, ${body.verification.status}, ${now}, ${now})
            on conflict (id) do update set status = excluded.status, decided_at = excluded.decided_at, updated_at = excluded.updated_at),
          w1 as (insert into bench_bound_log (kind, record_id, body, created_at) values ('audit', ${kycId}, ${change}::jsonb, ${now})),
          w2 as (insert into bench_bound_log (kind, record_id, body, created_at) values ('event', ${kycId}, ${change}::jsonb, ${now}))
          select 1`);
        return 'applied';
      });
      return reply.status(201).send({ received: true, applied: outcome === 'applied', outcome });
    });
  });
}

const closeSiwe = process.env.BENCH_SIWE_BOUND ? await siweBound() : undefined;

/** The SIWE bound's two routes, over a local chain of this process's own (removed at stop). */
async function siweBound(): Promise<() => Promise<void>> {
  const { db } = database;
  const chainId = config.evm.chainId;
  const dir = mkdtempSync(join(tmpdir(), 'bastion-bench-bound-siwe-'));
  const chain = await createLocalEvmChain({ chainId, dataDir: dir });
  for (const statement of [
    `create table if not exists bench_bound_nonces (nonce_hash text primary key, user_id uuid not null, domain text not null, uri text not null,
      chain_id integer not null, issued_at timestamptz not null, expires_at timestamptz not null, consumed_at timestamptz)`,
    'create table if not exists bench_bound_wallets (address text primary key, user_id uuid not null, created_at timestamptz not null)',
    BOUND_LOG_TABLE,
    'truncate bench_bound_nonces, bench_bound_wallets',
  ]) {
    await db.execute(sql.raw(statement));
  }
  const origin = `http://${config.host}:${config.port}`;
  const domain = new URL(origin).host;
  const hashOf = (nonce: string) => createHash('sha256').update(nonce).digest('hex');
  const refuse = (reply: { status(code: number): { send(body: unknown): unknown } }, why: string) => reply.status(400).send({ error: why });

  app.get<{ Querystring: { userId: string; address: string } }>('/siwe/challenge', async (request) => {
    const { userId, address } = request.query;
    const nonce = randomBytes(16).toString('hex');
    const issuedAt = new Date();
    const expirationTime = new Date(issuedAt.getTime() + 10 * 60_000);
    await db.execute(sql`insert into bench_bound_nonces (nonce_hash, user_id, domain, uri, chain_id, issued_at, expires_at)
      values (${hashOf(nonce)}, ${userId}, ${domain}, ${origin}, ${chainId}, ${issuedAt}, ${expirationTime})`);
    const message = createSiweMessage({ address: address as Hex, chainId, domain, nonce, uri: origin, version: '1', issuedAt, expirationTime, statement: 'Register this address as my wallet.' });
    return { message };
  });

  app.post<{ Body: { userId: string; message: string; signature: Hex } }>('/siwe/register', async (request, reply) => {
    const { userId, message, signature } = request.body;
    const parsed = parseSiweMessage(message);
    if (!parsed.nonce || !parsed.address) return refuse(reply, 'message');
    const nonceHash = hashOf(parsed.nonce);
    const found = (await db.execute(sql`select * from bench_bound_nonces where nonce_hash = ${nonceHash}`)) as unknown as {
      rows: Array<{ user_id: string; domain: string; uri: string; chain_id: number; expires_at: Date; consumed_at: Date | null }>;
    };
    const issued = found.rows[0];
    const now = new Date();
    if (!issued || issued.user_id !== userId || issued.consumed_at || issued.domain !== parsed.domain || issued.uri !== parsed.uri || issued.chain_id !== parsed.chainId || new Date(issued.expires_at) <= now) {
      return refuse(reply, 'nonce');
    }
    const verified = await verifySiweMessage(chain.publicClient, { message, signature, domain: issued.domain, nonce: parsed.nonce, time: now });
    if (!verified) return refuse(reply, 'signature');
    const code = await chain.publicClient.getCode({ address: parsed.address });
    const facts = JSON.stringify({ userId, address: parsed.address, signer: code && code !== '0x' ? 'contract' : 'eoa' });
    const stored = await db.transaction(async (tx) => {
      const consumed = (await tx.execute(
        sql`update bench_bound_nonces set consumed_at = ${now} where nonce_hash = ${nonceHash} and consumed_at is null and expires_at > ${now} returning nonce_hash`,
      )) as unknown as { rows: unknown[] };
      if (consumed.rows.length === 0) return false;
      await tx.execute(sql`with w0 as (insert into bench_bound_wallets (address, user_id, created_at) values (${parsed.address!.toLowerCase()}, ${userId}, ${now})),
          w1 as (insert into bench_bound_log (kind, record_id, body, created_at) values ('audit', ${userId}, ${facts}::jsonb, ${now})),
          w2 as (insert into bench_bound_log (kind, record_id, body, created_at) values ('event', ${userId}, ${facts}::jsonb, ${now}))
        select 1`);
      return true;
    });
    if (!stored) return refuse(reply, 'nonce used');
    return reply.status(201).send({ address: parsed.address, userId });
  });

  return async () => {
    await chain.close();
    rmSync(dir, { recursive: true, force: true });
  };
}

const closeLogin = process.env.BENCH_LOGIN_BOUND ? await loginBound() : undefined;

// The custody-a row's bound: bench/custody-bound.ts (its routes, over a local chain of its own).
const closeCustody = process.env.BENCH_CUSTODY_BOUND
  ? await custodyBound(app, database.db, {
      chainId: config.evm.chainId, baseUrl: () => `http://${config.host}:${config.port}`, logTable: BOUND_LOG_TABLE, masterKey: config.masterKey, dataDir: config.dataDir,
    })
  : undefined;

/** The login bound's route (its password pool closed at stop). */
async function loginBound(): Promise<() => Promise<void>> {
  const { db } = database;
  for (const statement of [
    'create table if not exists bench_bound_sessions (id uuid primary key, user_id uuid not null, refresh_hash text not null, created_at timestamptz not null, expires_at timestamptz not null)',
    BOUND_LOG_TABLE,
    'truncate bench_bound_sessions',
  ]) {
    await db.execute(sql.raw(statement));
  }
  const { credentialJoin } = createAuthRepo(db);
  const userWithCredential = repo.byEmailWith('bench_login_bound_user', credentialJoin.table, credentialJoin.on);
  const passwords = createPasswordHasher();
  const { privateKey } = generateKeyPairSync('ed25519');
  const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  app.post<{ Body: { email: string; password: string } }>('/login-bound', async (request, reply) => {
    const found = await userWithCredential(tenantId!, request.body.email.trim().toLowerCase());
    const stored = found?.joined?.passwordHash;
    if (!found || !stored || !(await passwords.verify(stored, request.body.password))) return reply.status(401).send({ error: 'credentials' });
    const now = new Date();
    const sessionId = randomUUID();
    const refreshToken = randomBytes(32).toString('base64url');
    const refreshHash = createHash('sha256').update(refreshToken).digest('hex');
    const facts = JSON.stringify({ userId: found.user.id, sessionId });
    await db.execute(sql`with w0 as (insert into bench_bound_sessions (id, user_id, refresh_hash, created_at, expires_at)
        values (${sessionId}, ${found.user.id}, ${refreshHash}, ${now}, ${new Date(now.getTime() + 7 * 24 * 3600_000)})),
      w1 as (insert into bench_bound_log (kind, record_id, body, created_at) values ('audit', ${found.user.id}, ${facts}::jsonb, ${now}))
      select 1`);
    const iat = Math.floor(now.getTime() / 1000);
    const signing = `${b64({ alg: 'EdDSA', typ: 'at+jwt' })}.${b64({ sub: found.user.id, sid: sessionId, tid: tenantId, iat, exp: iat + 900 })}`;
    const accessToken = `${signing}.${sign(null, Buffer.from(signing), privateKey).toString('base64url')}`;
    return reply.status(201).send({ accessToken, refreshToken, tokenType: 'Bearer', expiresIn: 900 });
  });
  return () => passwords.close();
}

const closeSignup = process.env.BENCH_SIGNUP_BOUND ? await signupBound() : undefined;

/** The sign-up bound's route (its password pool closed at stop). */
async function signupBound(): Promise<() => Promise<void>> {
  const { db } = database;
  for (const statement of [
    'create table if not exists bench_bound_users (tenant_id uuid not null, id uuid not null, email text not null, full_name text not null, created_at timestamptz not null, primary key (tenant_id, id), unique (tenant_id, email))',
    'create table if not exists bench_bound_credentials (tenant_id uuid not null, user_id uuid not null, password_hash text not null, created_at timestamptz not null, primary key (tenant_id, user_id))',
    'create table if not exists bench_bound_tokens (id uuid primary key, user_id uuid not null, purpose text not null, hash text not null, expires_at timestamptz not null)',
    BOUND_LOG_TABLE,
    'truncate bench_bound_users, bench_bound_credentials, bench_bound_tokens',
  ]) {
    await db.execute(sql.raw(statement));
  }
  const passwords = createPasswordHasher();
  const mailDir = mkdtempSync(join(tmpdir(), 'bench-signup-bound-'));
  const transport = createFileTransport(mailDir, systemClock);
  const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
  // /signup-bound-unsent: the same, the mail written to its row and never sent (what sending costs).
  const signUp = (send: boolean) => async (request: FastifyRequest<{ Body: { email: string; password: string; fullName: string } }>, reply: FastifyReply) => {
    const { password, fullName } = request.body;
    const email = request.body.email.trim().toLowerCase();
    checkPasswordPolicy(password);
    const passwordHash = await passwords.hash(password);
    const now = new Date();
    const expires = new Date(now.getTime() + 24 * 3600_000);
    const userId = randomUUID();
    const link = randomBytes(32).toString('base64url');
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    const facts = JSON.stringify({ userId, email });
    const rendered = renderMail(verificationMailContent(code, `${config.publicBaseUrl}/auth/pages/verify-email?${new URLSearchParams({ tenant: tenantId!, token: link }).toString()}`));
    const mail = JSON.stringify({ to: email, ...rendered });
    const written = (await db.execute(sql`with u as (insert into bench_bound_users (tenant_id, id, email, full_name, created_at)
        values (${tenantId}, ${userId}, ${email}, ${fullName}, ${now}) on conflict do nothing returning id),
      c as (insert into bench_bound_credentials (tenant_id, user_id, password_hash, created_at) select ${tenantId}::uuid, id, ${passwordHash}, ${now}::timestamptz from u),
      t as (insert into bench_bound_tokens (id, user_id, purpose, hash, expires_at)
        select ${randomUUID()}::uuid, id, 'link', ${sha256(link)}, ${expires}::timestamptz from u union all select ${randomUUID()}::uuid, id, 'code', ${sha256(code)}, ${expires}::timestamptz from u),
      l as (insert into bench_bound_log (kind, record_id, body, created_at)
        select 'audit', id, ${facts}::jsonb, ${now}::timestamptz from u union all select 'event', id, ${facts}::jsonb, ${now}::timestamptz from u
        union all select 'mail', id, ${mail}::jsonb, ${now}::timestamptz from u)
      select id from u`)) as unknown as { rows: unknown[] };
    if (written.rows.length === 0) return reply.status(409).send({ error: 'email taken' });
    if (send) reply.raw.once('finish', () => void transport.send({ id: userId, from: config.mailFrom, to: email, ...rendered }).catch((error: unknown) => request.log.error({ err: error }, 'bound mail')));
    return reply.status(201).send({ id: userId, email, fullName, emailVerified: false, createdAt: now.toISOString() });
  };
  app.post('/signup-bound', signUp(true));
  app.post('/signup-bound-unsent', signUp(false));
  return async () => {
    await passwords.close();
    await transport.close();
    rmSync(mailDir, { recursive: true, force: true });
  };
}

await app.listen({ port: config.port, host: config.host });
const stop = () => {
  void app
    .close()
    .then(() => closeSiwe?.())
    .then(() => closeLogin?.())
    .then(() => closeCustody?.())
    .then(() => closeSignup?.())
    .then(() => database.close())
    .then(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
