// What bounds the custody-a transfer row (issue #30, goal 6): the least a client and a custodian
// must both do for one transfer to reach CONFIRMED in the client's record, on the ceiling server
// (BENCH_CUSTODY_BOUND), in one process as the service hosts Bastion and its custody-a sandbox.
//
//   POST /custody-bound/transfer  the client's side of the request: the idempotency key claimed
//       (one insert), the provider asked over HTTP with the request signed as custody-a's are
//       (Ed25519 over timestamp, method, path and body; the same `signRequest`, through fetch as
//       the service's adapter calls), then one statement recording the transaction with its
//       audit entry, its event and the idempotency key's answer. 201 with the transaction's id.
//   POST /custody-bound/provider/transactions  the custodian's side: the signature checked
//       (`verifyRequest`, the client's public key held in memory: no client row read), one insert
//       of the transaction (unique by the client's externalId), 201; after answering, its back
//       office moves it REQUESTED -> APPROVED -> SIGNED -> PUBLISHED -> CONFIRMED, each move one
//       compare-and-set update and one webhook signed with P-256 as custody-a's (`signWebhook`,
//       the sandbox's retry delays when it is not taken). The chain work is the sandbox's own
//       (`signEvm`, `broadcastEvm`, over a local EDR chain of this server's own; the wallet's key
//       sealed by the service's SecretBox, opened for each signature), and the receipt awaited as the
//       row's ceiling awaits it (viem, polled every 10 ms; the sandbox polls every 100 ms).
//   POST /custody-bound/webhook  the client's webhook: the P-256 signature checked, then in one
//       transaction the delivery's claim with the transaction's row read under its lock (one
//       statement), and one statement moving its status forward with an audit entry (and the event
//       at CONFIRMED). A webhook about a transaction not recorded yet is 503, as the service's.
//   POST /custody-bound/prepare  funds one source wallet per worker from a development account.
//
// Not in it: API keys, tenants, vaults, the registry's wallet, provider settings (their stamp),
// state-machine code beyond the rank, the in-flight leases, the status's follower.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { parseEther, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { Db } from '../src/platform/db/client.js';
import { createSecretBox, resolveMasterKey } from '../src/platform/crypto/secrets.js';
import { createLocalEvmChain } from '../src/providers/evm-chain/local/edr.js';
import {
  ACCESS_KEY_HEADER, newEd25519KeyPair, newP256KeyPair, SIGNATURE_HEADER, signRequest, signWebhook, TIMESTAMP_HEADER,
  verifyRequest, verifyWebhook, WEBHOOK_SIGNATURE_HEADER, WEBHOOK_TIMESTAMP_HEADER,
} from '../src/providers/custody/custody-a/signing.js';
import { transactionStatusRank } from '../src/modules/custody/status-order.js';
import { broadcastEvm, signEvm, type SandboxChains } from '../src/sandboxes/custody-a/chains.js';

const DESTINATION = '0x000000000000000000000000000000000000dEaD';
const RETRY_DELAYS_MS = [250, 1000, 3000, 10_000];
const MOVES = [
  ['REQUESTED', 'APPROVED'],
  ['APPROVED', 'SIGNED'],
  ['SIGNED', 'PUBLISHED'],
  ['PUBLISHED', 'CONFIRMED'],
] as const;

/** The bound's tables (bench_bound_*), emptied at start. */
const TABLES = [
  'create table if not exists bench_bound_idempotency (key text primary key, state text not null, body jsonb)',
  `create table if not exists bench_bound_custody_provider (id uuid primary key, external_id text not null unique, source integer not null,
    status text not null, signed_tx text, hash text, updated_at timestamptz not null)`,
  `create table if not exists bench_bound_custody_tx (id uuid primary key, provider_id uuid not null unique, status text not null,
    hash text, updated_at timestamptz not null)`,
  'create table if not exists bench_bound_custody_claims (event_id uuid primary key, received_at timestamptz not null)',
  'truncate bench_bound_idempotency, bench_bound_custody_provider, bench_bound_custody_tx, bench_bound_custody_claims',
];

/** Registers the bound's routes on `app`, whose own address is `baseUrl`; answers its stop. */
export async function custodyBound(
  app: FastifyInstance,
  db: Db,
  options: { chainId: number; baseUrl: () => string; logTable: string; masterKey: Buffer | undefined; dataDir: string },
): Promise<() => Promise<void>> {
  for (const statement of [...TABLES, options.logTable]) await db.execute(sql.raw(statement));
  const dir = mkdtempSync(join(tmpdir(), 'bastion-bench-bound-custody-'));
  const chain = await createLocalEvmChain({ chainId: options.chainId, dataDir: dir });
  const chains = { evmChain: async () => chain } as unknown as SandboxChains;
  const client = newEd25519KeyPair();
  const webhookKey = newP256KeyPair();
  // The wallets' keys sealed as the sandbox seals them: the service's SecretBox, its data keys under the same master key.
  const secrets = await createSecretBox(db, resolveMasterKey(options.masterKey, options.dataDir));
  const sources: string[] = [];
  const KEY_CONTEXT = 'bench-custody-bound:wallet';
  const facts = (id: string, status: string, hash: string | null) => JSON.stringify({ transactionId: id, status, hash });

  await app.register(async (scope) => routes(scope));
  return async () => {
    await chain.close();
    rmSync(dir, { recursive: true, force: true });
  };

  function routes(app: FastifyInstance): void {
    // Signatures are checked over the bytes received: JSON bodies arrive as buffers, parsed after.
    app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    const json = <T>(raw: unknown) => JSON.parse((raw as Buffer).toString('utf8')) as T;

    app.post('/custody-bound/prepare', async (request) => {
      const { count } = json<{ count: number }>(request.body);
      const funder = chain.walletClient(chain.devAccounts[0]!);
      while (sources.length < count) {
        const key = generatePrivateKey();
        const hash = await funder.sendTransaction({ to: privateKeyToAccount(key).address, value: parseEther('1') });
        await chain.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 10 });
        sources.push(secrets.encrypt(key, KEY_CONTEXT));
      }
      return { sources: sources.length };
    });

    // The client's request: idempotency key, the provider's call, one statement recording it all.
    app.post('/custody-bound/transfer', async (request, reply) => {
      const { source, key } = json<{ source: number; key: string }>(request.body);
      const claimed = (await db.execute(sql`insert into bench_bound_idempotency (key, state) values (${key}, 'started') on conflict do nothing returning key`)) as unknown as { rows: unknown[] };
      if (claimed.rows.length === 0) return reply.status(409).send({ error: 'key in use' });
      const path = '/custody-bound/provider/transactions';
      const body = JSON.stringify({ source, externalId: key, destinationAddress: DESTINATION, symbol: 'ETH', qty: '0.0001' });
      const timestamp = String(Math.floor(Date.now() / 1000));
      const res = await fetch(`${options.baseUrl()}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', [ACCESS_KEY_HEADER]: 'bound', [TIMESTAMP_HEADER]: timestamp, [SIGNATURE_HEADER]: signRequest(client.privateKeyPem, timestamp, 'POST', path, body) },
        body,
        redirect: 'error',
        signal: AbortSignal.timeout(15_000),
      });
      const seen = (await res.json()) as { id: string; status: string };
      if (res.status !== 201) return reply.status(502).send({ error: `provider ${res.status}` });
      const id = randomUUID();
      const now = new Date();
      const answer = JSON.stringify({ transactionId: id, status: seen.status });
      await db.execute(sql`with w0 as (insert into bench_bound_custody_tx (id, provider_id, status, hash, updated_at) values (${id}, ${seen.id}, ${seen.status}, null, ${now})),
          w1 as (insert into ${sql.raw(LOG)} (kind, record_id, body, created_at) values ('audit', ${id}, ${facts(id, seen.status, null)}::jsonb, ${now})),
          w2 as (insert into ${sql.raw(LOG)} (kind, record_id, body, created_at) values ('event', ${id}, ${facts(id, seen.status, null)}::jsonb, ${now})),
          w3 as (update bench_bound_idempotency set state = 'done', body = ${answer}::jsonb where key = ${key})
        select 1`);
      return reply.status(201).send({ transactionId: id, status: seen.status });
    });

    // The custodian's side: the request's signature, one insert, the back office after the answer.
    app.post('/custody-bound/provider/transactions', async (request, reply) => {
      const raw = (request.body as Buffer).toString('utf8');
      const header = (name: string) => String(request.headers[name] ?? '');
      if (!verifyRequest(client.publicKeyPem, header(TIMESTAMP_HEADER), 'POST', request.url, raw, header(SIGNATURE_HEADER))) return reply.status(401).send({ error: 'signature' });
      const body = JSON.parse(raw) as { source: number; externalId: string };
      if (!sources[body.source]) return reply.status(404).send({ error: 'wallet' });
      const id = randomUUID();
      const inserted = (await db.execute(
        sql`insert into bench_bound_custody_provider (id, external_id, source, status, updated_at) values (${id}, ${body.externalId}, ${body.source}, 'REQUESTED', ${new Date()})
          on conflict (external_id) do nothing returning id`,
      )) as unknown as { rows: unknown[] };
      if (inserted.rows.length === 0) return reply.status(409).send({ error: 'externalId' });
      reply.raw.once('finish', () => void backOffice(id, body.source).catch((error: unknown) => request.log.error({ err: error }, 'custody bound back office')));
      return reply.status(201).send({ id, status: 'REQUESTED' });
    });

    /** Moves the transaction through its statuses on the chain; a webhook at each change. */
    async function backOffice(id: string, source: number): Promise<void> {
      let signed: { raw: Hex; hash: Hex } | undefined;
      for (const [from, to] of MOVES) {
        if (to === 'SIGNED') signed = await signEvm(chains, (await secrets.decrypt(sources[source]!, KEY_CONTEXT)) as Hex, { to: DESTINATION, qty: '0.0001' });
        if (to === 'PUBLISHED' && (await broadcastEvm(chains, signed!.raw, signed!.hash)) !== 'sent') throw new Error('not sent');
        if (to === 'CONFIRMED' && (await chain.publicClient.waitForTransactionReceipt({ hash: signed!.hash, pollingInterval: 10 })).status !== 'success') throw new Error('not confirmed');
        const moved = (await db.execute(
          sql`update bench_bound_custody_provider set status = ${to}, updated_at = ${new Date()}${to === 'SIGNED' ? sql`, signed_tx = ${signed!.raw}, hash = ${signed!.hash}` : sql``}
            where id = ${id} and status = ${from} returning id`,
        )) as unknown as { rows: unknown[] };
        if (moved.rows.length === 0) return;
        notify({ id, status: to, hash: to === 'APPROVED' ? null : signed!.hash });
      }
    }

    function notify(data: { id: string; status: string; hash: string | null }): void {
      const body = JSON.stringify({ id: randomUUID(), type: 'transaction.status_changed', createdAt: new Date().toISOString(), data });
      void (async () => {
        for (let attempt = 0; ; attempt++) {
          const timestamp = String(Math.floor(Date.now() / 1000));
          const status = await fetch(`${options.baseUrl()}/custody-bound/webhook`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', [WEBHOOK_TIMESTAMP_HEADER]: timestamp, [WEBHOOK_SIGNATURE_HEADER]: signWebhook(webhookKey.privateKeyPem, timestamp, body) },
            body,
            redirect: 'error',
            signal: AbortSignal.timeout(10_000),
          }).then(
            async (res) => (await res.arrayBuffer(), res.status),
            () => 0,
          );
          const delay = RETRY_DELAYS_MS[attempt];
          if ((status >= 200 && status < 300) || delay === undefined) return;
          await sleep(delay);
        }
      })();
    }

    // The client's webhook: the signature, then the claim with the locked row, then the change.
    app.post('/custody-bound/webhook', async (request, reply) => {
      const raw = (request.body as Buffer).toString('utf8');
      const timestamp = String(request.headers[WEBHOOK_TIMESTAMP_HEADER] ?? '');
      if (!verifyWebhook(webhookKey.publicKeyPem, timestamp, raw, String(request.headers[WEBHOOK_SIGNATURE_HEADER] ?? ''))) return reply.status(401).send({ error: 'signature' });
      const { id: eventId, data } = JSON.parse(raw) as { id: string; data: { id: string; status: string; hash: string | null } };
      const outcome = await db
        .transaction(async (tx) => {
          const now = new Date();
          const found = (await tx.execute(sql`with w0 as (insert into bench_bound_custody_claims (event_id, received_at) values (${eventId}, ${now}) on conflict do nothing returning 1)
              select (select count(*) from w0)::int as claimed, r.id, r.status from (select 1) one
              left join lateral (select id, status from bench_bound_custody_tx where provider_id = ${data.id} for update) r on true`)) as unknown as {
            rows: Array<{ claimed: number; id: string | null; status: string | null }>;
          };
          const row = found.rows[0]!;
          if (row.claimed === 0) return 'duplicate';
          if (!row.id) throw new NotYet();
          if (transactionStatusRank(data.status) <= transactionStatusRank(row.status!)) return 'applied';
          const log = (kind: string) => sql`insert into ${sql.raw(LOG)} (kind, record_id, body, created_at) values (${kind}, ${row.id}, ${facts(row.id!, data.status, data.hash)}::jsonb, ${now})`;
          await tx.execute(sql`with w0 as (update bench_bound_custody_tx set status = ${data.status}, hash = ${data.hash}, updated_at = ${now} where id = ${row.id}),
              w1 as (${log('audit')})${data.status === 'CONFIRMED' ? sql`, w2 as (${log('event')})` : sql``}
            select 1`);
          return 'applied';
        })
        .catch((error: unknown) => {
          if (error instanceof NotYet) return 'not yet';
          throw error;
        });
      if (outcome === 'not yet') return reply.status(503).header('retry-after', '1').send({ error: 'not recorded yet' });
      return reply.status(200).send({ received: true });
    });
  }
}

class NotYet extends Error {}

/** The log table the bound writes its audit entries and events to (the ceiling server's BOUND_LOG_TABLE). */
const LOG = 'bench_bound_log';
