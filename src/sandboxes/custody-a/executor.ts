import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Hex } from 'viem';
import { FINAL_TRANSACTION_STATUSES, type CustodyTransactionStatus, type TransferStatus } from '../../providers/custody/port.js';
import { signWebhook, WEBHOOK_SIGNATURE_HEADER, WEBHOOK_TIMESTAMP_HEADER, newP256KeyPair } from '../../providers/custody/custody-a/signing.js';
import { inArray } from 'drizzle-orm';
import { crashPoint, inFlightFlow } from '../../platform/module/in-flight.js';
import { accountSetTx, broadcastEvm, broadcastXrpl, confirmEvm, confirmXrpl, NotSent, Refused, signEvm, signXrpl, xrpPayment, type Outcome } from './chains.js';
import { transactionDto, transferDto, walletKeyContext, type CustodyASandboxOptions } from './context.js';
import type { SandboxStore } from './store.js';
import { custodyASandboxTransactions, custodyASandboxTransfers, type SandboxClientRow, type SandboxTransactionRow, type SandboxTransferRow, type SandboxWalletRow } from './table.js';

const KEY_CONTEXT = 'custody-a-sandbox:webhook-key';
const DELIVERY_TIMEOUT_MS = 10_000;
const RETRY_DELAYS_MS = [250, 1000, 3000, 10_000];

/**
 * The sandbox's back office: executes accepted transactions and transfers for real on the
 * chains (one at a time per wallet, so EVM nonces and XRPL sequences never collide), moves
 * their status on, and tells the client by signed webhook at every change.
 */
export function createExecutor(options: CustodyASandboxOptions, store: SandboxStore) {
  const { clock, secrets, chains, logger, background } = options;
  const doFetch = options.fetch ?? fetch;
  const queues = new Map<string, Promise<unknown>>();

  function serialized<T>(walletId: string, work: () => Promise<T>): Promise<T> {
    const previous = queues.get(walletId) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(work);
    queues.set(walletId, next);
    void next.finally(() => {
      if (queues.get(walletId) === next) queues.delete(walletId);
    });
    return next;
  }

  // The webhook key is made once per database and never changes: read and opened once per process.
  let loadedKey: Promise<{ publicKeyPem: string; privateKeyPem: string }> | undefined;
  function webhookKey(): Promise<{ publicKeyPem: string; privateKeyPem: string }> {
    loadedKey ??= loadWebhookKey().catch((error: unknown) => {
      loadedKey = undefined;
      throw error;
    });
    return loadedKey;
  }

  async function loadWebhookKey(): Promise<{ publicKeyPem: string; privateKeyPem: string }> {
    let row = await store.findKey();
    if (!row) {
      const pair = newP256KeyPair();
      await store.insertKeyIfAbsent({ id: 'webhook', publicKeyPem: pair.publicKeyPem, privateKeySealed: secrets.encrypt(pair.privateKeyPem, KEY_CONTEXT), createdAt: clock.now() });
      row = (await store.findKey())!;
    }
    return { publicKeyPem: row.publicKeyPem, privateKeyPem: await secrets.decrypt(row.privateKeySealed, KEY_CONTEXT) };
  }

  /**
   * Sends a signed webhook; a receiver that fails or answers other than 2xx gets it again after
   * 0.25, 1, 3 and 10 s (the same id and body, a fresh timestamp and signature), then no more.
   * A shutdown ends the waits (the status stays readable with GET, as at the provider).
   */
  type ClientOf = (apiKey: string) => ReturnType<SandboxStore['findClient']>;

  /**
   * The client rows one drive of a job reads (its webhook URL), read once for the drive rather
   * than for every status change: a drive takes milliseconds to seconds, and a change of the
   * URL meanwhile reaches the next drive's webhooks, as a provider's configuration change does.
   */
  function clientsOfOneDrive(known?: SandboxClientRow): ClientOf {
    const read = new Map<string, ReturnType<SandboxStore['findClient']>>();
    // The request that accepted the job read its client a moment ago: its webhook URL serves the drive.
    if (known) read.set(known.apiKey, Promise.resolve(known));
    return (apiKey) => {
      let client = read.get(apiKey);
      if (!client) {
        client = store.findClient(apiKey);
        read.set(apiKey, client);
        client.catch(() => read.delete(apiKey));
      }
      return client;
    };
  }

  function notify(apiKey: string, type: string, data: unknown, clientOf: ClientOf): void {
    background.run('custody-a sandbox webhook', async () => {
      const client = await clientOf(apiKey);
      if (!client?.webhookUrl) return;
      const webhookUrl = client.webhookUrl;
      const body = JSON.stringify({ id: randomUUID(), type, createdAt: clock.now().toISOString(), data });
      const { privateKeyPem } = await webhookKey();
      for (let attempt = 0; ; attempt++) {
        const timestamp = String(Math.floor(clock.now().getTime() / 1000));
        let status = 0;
        try {
          const res = await doFetch(webhookUrl, {
            method: 'POST',
            headers: { 'content-type': 'application/json', [WEBHOOK_TIMESTAMP_HEADER]: timestamp, [WEBHOOK_SIGNATURE_HEADER]: signWebhook(privateKeyPem, timestamp, body) },
            body,
            redirect: 'error',
            signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
          });
          await res.arrayBuffer();
          status = res.status;
        } catch {
          status = 0; // not reached, or no answer in time
        }
        if (status >= 200 && status < 300) {
          logger.info({ type, status, attempt }, 'custody-a sandbox webhook delivered');
          return;
        }
        const delay = RETRY_DELAYS_MS[attempt];
        if (delay === undefined) {
          logger.warn({ type, status, attempts: attempt + 1 }, 'custody-a sandbox webhook given up');
          return;
        }
        try {
          await sleep(delay, undefined, { signal: background.signal });
        } catch {
          logger.warn({ type, status, attempts: attempt + 1 }, 'custody-a sandbox webhook not resent: shutting down');
          return;
        }
      }
    });
  }

  const walletKey = (wallet: SandboxWalletRow) => secrets.decrypt(wallet.keySealed, walletKeyContext(wallet.id));
  const leaseMs = () => options.inFlight.sweeper.leaseMs;
  const leaseFrom = (at: Date) => new Date(at.getTime() + leaseMs());

  /**
   * One value move of the sandbox, whatever its table: where it stands (`stage`) and the
   * compare-and-set moves between stages. Every move names the stage it leaves, so two drivers
   * (a request's and a sweeper's) never both make one: the loser reloads and follows the winner.
   */
  interface Job {
    /** transaction or transfer: names the crash points (`custody-a.transaction.before-send`). */
    kind: 'transaction' | 'transfer';
    id: string;
    apiKey: string;
    walletId: string;
    stage: 'new' | 'sign' | 'send' | 'confirm' | 'final';
    signedTx: string | null;
    hash: string | null;
    lastLedgerSequence: string | null;
    request: Record<string, unknown>;
    type: 'TRANSFER' | 'ACCOUNT_SET';
    attempts: number;
  }
  interface Moves {
    reload(): Promise<Job | undefined>;
    approve(job: Job): Promise<Job | undefined>;
    signed(job: Job, signed: { tx: string; hash: string; lls: string | null }): Promise<Job | undefined>;
    /** The signed transaction can never be mined (its nonce or sequence went to another): forget it, sign again. */
    unsign(job: Job): Promise<Job | undefined>;
    published(job: Job): Promise<Job | undefined>;
    pending(job: Job): Promise<Job | undefined>;
    confirmed(job: Job): Promise<Job | undefined>;
    failed(job: Job, reason: string, rejected: boolean): Promise<Job | undefined>;
    hold(until: Date): Promise<void>;
  }

  const TX_STAGE: Record<string, Job['stage']> = { REQUESTED: 'new', APPROVED: 'sign', SIGNED: 'send', PUBLISHED: 'confirm', CONFIRMATION_PENDING: 'confirm' };
  const txJob = (row: SandboxTransactionRow): Job => ({
    kind: 'transaction', id: row.id, apiKey: row.apiKey, walletId: row.walletId, stage: TX_STAGE[row.status] ?? 'final', signedTx: row.signedTx, hash: row.hash,
    lastLedgerSequence: row.lastLedgerSequence, request: row.request, type: row.type, attempts: row.attempts,
  });
  const transferJob = (row: SandboxTransferRow): Job => ({
    kind: 'transfer', id: row.id, apiKey: row.apiKey, walletId: row.sourceWalletId,
    stage: row.status === 'QUEUED' ? (row.signedTx ? 'send' : 'sign') : row.status === 'IN_PROGRESS' ? 'confirm' : 'final',
    signedTx: row.signedTx, hash: row.hash, lastLedgerSequence: null, request: { destinationAddress: row.destinationAddress, qty: row.amount, deductFee: row.deductFee }, type: 'TRANSFER', attempts: row.attempts,
  });

  function transactionMoves(id: string, clientOf: ClientOf = clientsOfOneDrive()): Moves {
    const move = async (job: Job, from: string, status: CustodyTransactionStatus, patch: Partial<SandboxTransactionRow> = {}, signed?: boolean) => {
      const row = await store.moveTransaction(job.id, { status: from, ...(signed === undefined ? {} : { signed }) }, { ...patch, status, updatedAt: clock.now() });
      if (!row) return undefined;
      if (row.status !== from) notify(row.apiKey, 'transaction.status_changed', transactionDto(row), clientOf);
      return txJob(row);
    };
    const statusOf = (job: Job) => (job.stage === 'confirm' ? undefined : { new: 'REQUESTED', sign: 'APPROVED', send: 'SIGNED', final: '' }[job.stage]);
    return {
      reload: async () => {
        const row = await store.findTransactionById(id);
        return row && txJob(row);
      },
      approve: (job) => move(job, 'REQUESTED', 'APPROVED'),
      signed: (job, s) => move(job, 'APPROVED', 'SIGNED', { signedTx: s.tx, hash: s.hash, lastLedgerSequence: s.lls }, false),
      unsign: (job) => move(job, 'SIGNED', 'APPROVED', { signedTx: null, hash: null, lastLedgerSequence: null }),
      published: (job) => move(job, 'SIGNED', 'PUBLISHED'),
      pending: async (job) => (await move(job, 'PUBLISHED', 'CONFIRMATION_PENDING')) ?? job,
      confirmed: async (job) => (await move(job, 'PUBLISHED', 'CONFIRMED')) ?? move(job, 'CONFIRMATION_PENDING', 'CONFIRMED'),
      failed: async (job, reason, rejected) => {
        const status = rejected ? 'REJECTED' : 'FAILED';
        const from = statusOf(job);
        if (from) return move(job, from, status, { failureReason: reason });
        return (await move(job, 'PUBLISHED', status, { failureReason: reason })) ?? move(job, 'CONFIRMATION_PENDING', status, { failureReason: reason });
      },
      hold: (until) => transactionFlow.hold(id, until),
    };
  }

  function transferMoves(id: string, clientOf: ClientOf = clientsOfOneDrive()): Moves {
    const move = async (job: Job, from: { status: string; signed?: boolean }, status: TransferStatus, patch: Partial<SandboxTransferRow> = {}) => {
      const row = await store.moveTransfer(job.id, from, { ...patch, status, updatedAt: clock.now() });
      if (!row) return undefined;
      if (row.status !== from.status) notify(row.apiKey, 'transfer.status_changed', transferDto(row), clientOf);
      return transferJob(row);
    };
    return {
      reload: async () => {
        const row = await store.findTransferById(id);
        return row && transferJob(row);
      },
      approve: async (job) => job,
      signed: (job, s) => move(job, { status: 'QUEUED', signed: false }, 'QUEUED', { signedTx: s.tx, hash: s.hash }),
      unsign: (job) => move(job, { status: 'QUEUED', signed: true }, 'QUEUED', { signedTx: null, hash: null }),
      published: (job) => move(job, { status: 'QUEUED', signed: true }, 'IN_PROGRESS'),
      pending: async (job) => job,
      confirmed: (job) => move(job, { status: 'IN_PROGRESS' }, 'COMPLETED'),
      failed: (job, reason) => move(job, { status: job.stage === 'confirm' ? 'IN_PROGRESS' : 'QUEUED' }, 'FAILED', { failureReason: reason }),
      hold: (until) => transferFlow.hold(id, until),
    };
  }

  /** After this many claims a move that still cannot be sent fails with the last reason. */
  const MAX_SEND_ATTEMPTS = 20;

  /** Signs (once: the signed transaction is stored before anything is sent) and answers the stored job. */
  async function sign(wallet: SandboxWalletRow, job: Job, moves: Moves): Promise<Job | undefined> {
    const key = await walletKey(wallet);
    let signed: { tx: string; hash: string; lls: string | null };
    if (wallet.blockchain === 'ETHEREUM') {
      const r = job.request;
      const evm = await signEvm(chains, key as Hex, {
        to: String(r.destinationAddress), qty: String(r.qty), contract: (r.contract as string | undefined) ?? null, deductFee: r.deductFee === true, ...(typeof r.symbol === 'string' ? { symbol: r.symbol } : {}),
      });
      signed = { tx: evm.raw, hash: evm.hash, lls: null };
    } else {
      const sequence = job.request.sequence === undefined ? undefined : Number(job.request.sequence);
      const build = job.type === 'ACCOUNT_SET' ? accountSetTx(Number(job.request.setFlag)) : xrpPayment(String(job.request.destinationAddress), String(job.request.qty));
      const x = await signXrpl(chains, key, build, sequence);
      signed = { tx: x.blob, hash: x.hash, lls: String(x.lastLedgerSequence) };
    }
    return moves.signed(job, signed);
  }

  /** One step forward; undefined when another driver moved the job first (reload), `wait` when there is nothing to do now. */
  async function step(wallet: SandboxWalletRow, job: Job, moves: Moves, wait: boolean): Promise<Job | undefined | 'wait'> {
    switch (job.stage) {
      case 'new':
        return moves.approve(job);
      case 'sign':
        await crashPoint(`custody-a.${job.kind}.before-sign`);
        try {
          return await sign(wallet, job, moves);
        } catch (error) {
          if (error instanceof Refused) return moves.failed(job, error.message, true);
          if (job.attempts >= MAX_SEND_ATTEMPTS) return moves.failed(job, `could not be signed: ${(error as Error).message}`, false);
          return 'wait';
        }
      case 'send': {
        await crashPoint(`custody-a.${job.kind}.before-send`);
        let sent: Awaited<ReturnType<typeof broadcastEvm>>;
        try {
          sent = wallet.blockchain === 'ETHEREUM' ? await broadcastEvm(chains, job.signedTx as Hex, job.hash as Hex) : await broadcastXrpl(chains, job.signedTx!, job.hash!);
        } catch (error) {
          if (error instanceof Refused) return moves.failed(job, error.message, true);
          if (error instanceof NotSent) return moves.failed(job, `could not be sent: ${error.message}`, false);
          sent = { retry: (error as Error).message };
        }
        await crashPoint(`custody-a.${job.kind}.after-send`);
        if (sent === 'sent') return moves.published(job);
        if (sent === 'replaced') return moves.unsign(job);
        if (job.attempts >= MAX_SEND_ATTEMPTS) return moves.failed(job, `could not be sent: ${sent.retry}`, false);
        return 'wait';
      }
      case 'confirm': {
        const outcome = await confirm(wallet, job.hash!, job.lastLedgerSequence, wait).catch((): Outcome => 'PENDING');
        if (outcome === 'CONFIRMED') return moves.confirmed(job);
        if (outcome === 'FAILED') return moves.failed(job, 'failed on chain', false);
        if (outcome === 'EXPIRED') return moves.failed(job, 'expired: a validated ledger passed its LastLedgerSequence without it', false);
        // Not seen yet: send the same bytes again (a node that lost it gets it back; the same hash either way).
        if (wallet.blockchain === 'ETHEREUM') await broadcastEvm(chains, job.signedTx as Hex, job.hash as Hex).catch(() => undefined);
        else await broadcastXrpl(chains, job.signedTx!, job.hash!).catch(() => undefined);
        if (wait) await moves.pending(job);
        return 'wait';
      }
      default:
        return 'wait';
    }
  }

  /**
   * What a drive starts from: the row as its driver just wrote it, with the lease it holds
   * (inserted by the request that accepted it, or claimed by a sweep), and the wallet when the
   * request read it already. Nothing is read again for it: every move is a compare-and-set on
   * the stage it leaves, so a start another driver has overtaken makes no move, and the job is
   * reloaded.
   */
  interface Start {
    job: Job;
    leaseUntil: Date | null;
    wallet?: SandboxWalletRow;
  }

  /**
   * Drives a job as far as it goes: the request that accepted it (waiting for the chain, up to
   * 30 s, holding the lease) or a sweeper that claimed it (no waiting). Left in flight, it is
   * let go for the next sweep.
   */
  async function drive(moves: Moves, wait: boolean, start: Start): Promise<void> {
    let job: Job | undefined = start.job;
    if (job.stage === 'final') return;
    const wallet = start.wallet ?? (await store.findWallet(job.apiKey, job.walletId));
    if (!wallet) {
      await moves.failed(job, 'the wallet is gone', false);
      return;
    }
    await serialized(wallet.id, async () => {
      const deadline = clock.now().getTime() + (wait ? 30_000 : 0);
      // A request's wait ends at shutdown too: the row is let go, and the next start's sweep resumes it.
      const waiting = () => wait && !background.signal.aborted;
      // The lease is renewed before a step once a quarter of it has passed (not before every
      // step: the steps of a transfer take milliseconds, each renewal is a write).
      let heldUntil = start.leaseUntil?.getTime() ?? 0;
      for (let i = 0; i < 50 && job && job.stage !== 'final'; i++) {
        if (heldUntil - clock.now().getTime() < (leaseMs() * 3) / 4) {
          const until = leaseFrom(clock.now());
          await moves.hold(until);
          heldUntil = until.getTime();
        }
        const next = await step(wallet, job, moves, waiting());
        if (next === 'wait') {
          if (!waiting() || clock.now().getTime() >= deadline) break;
          if (job.stage !== 'confirm') await sleep(500, undefined, { signal: background.signal }).catch(() => undefined);
          continue;
        }
        job = next ?? (await moves.reload());
      }
      // Not final: the next sweep looks again (at once after a request's wait; a sweep's claim keeps its lease).
      if (job && job.stage !== 'final' && wait) await moves.hold(clock.now());
    });
  }

  const confirm = (wallet: { blockchain: string }, hash: string, lls: string | null, wait: boolean): Promise<Outcome> =>
    wallet.blockchain === 'ETHEREUM' ? confirmEvm(chains, hash as Hex, wait) : confirmXrpl(chains, hash, Number(lls ?? 0), wait);

  const t = custodyASandboxTransactions;
  const transactionFlow = inFlightFlow(
    options.db,
    { name: 'custody-a sandbox transaction', table: t, id: t.id, leaseUntil: t.leaseUntil, attempts: t.attempts, inFlight: inArray(t.status, Object.keys(TX_STAGE)), order: t.updatedAt },
    (row) => drive(transactionMoves(row.id), false, { job: txJob(row), leaseUntil: row.leaseUntil }),
  );
  const f = custodyASandboxTransfers;
  const transferFlow = inFlightFlow(
    options.db,
    { name: 'custody-a sandbox transfer', table: f, id: f.id, leaseUntil: f.leaseUntil, attempts: f.attempts, inFlight: inArray(f.status, ['QUEUED', 'IN_PROGRESS']), order: f.updatedAt },
    (row) => drive(transferMoves(row.id), false, { job: transferJob(row), leaseUntil: row.leaseUntil }),
  );
  // Registered with the routes (served only while sandboxes are on): without sandboxes the
  // schema `sandbox` does not exist, and the sweeper must not look for these rows.
  let registered = false;

  return {
    /** Hands the sandbox's in-flight rows to the platform's sweeper (once). */
    registerFlows(): void {
      if (registered) return;
      registered = true;
      options.inFlight.register(transactionFlow);
      options.inFlight.register(transferFlow);
    },
    webhookKey,
    /** The lease a new row is stored with: the request that accepted it drives it (see drive). */
    newLease: () => ({ leaseUntil: leaseFrom(clock.now()), attempts: 1 }),
    /**
     * Starts the work of a new transaction after the answer (the provider works asynchronously),
     * from the row just inserted with its lease, and the client and wallet the request read.
     */
    startTransaction(row: SandboxTransactionRow, read: { client: SandboxClientRow; wallet: SandboxWalletRow }): void {
      const start = { job: txJob(row), leaseUntil: row.leaseUntil, wallet: read.wallet };
      background.run('custody-a sandbox transaction', () => drive(transactionMoves(row.id, clientsOfOneDrive(read.client)), true, start));
    },
    startTransfer(row: SandboxTransferRow, read: { client: SandboxClientRow; wallet: SandboxWalletRow }): void {
      const start = { job: transferJob(row), leaseUntil: row.leaseUntil, wallet: read.wallet };
      background.run('custody-a sandbox transfer', () => drive(transferMoves(row.id, clientsOfOneDrive(read.client)), true, start));
    },
    /** A read looks at the chain again for a published transaction. */
    async refreshTransaction(row: SandboxTransactionRow): Promise<SandboxTransactionRow> {
      if (FINAL_TRANSACTION_STATUSES.includes(row.status as CustodyTransactionStatus) || TX_STAGE[row.status] !== 'confirm' || !row.hash) return row;
      const wallet = await store.findWallet(row.apiKey, row.walletId);
      if (!wallet) return row;
      const outcome = await confirm(wallet, row.hash, row.lastLedgerSequence, false).catch((): Outcome => 'PENDING');
      if (outcome === 'PENDING') return row;
      const moves = transactionMoves(row.id);
      const job = txJob(row);
      if (outcome === 'CONFIRMED') await moves.confirmed(job);
      else await moves.failed(job, outcome === 'EXPIRED' ? 'expired: a validated ledger passed its LastLedgerSequence without it' : 'failed on chain', false);
      return (await store.findTransactionById(row.id)) ?? row;
    },
    async refreshTransfer(row: SandboxTransferRow): Promise<SandboxTransferRow> {
      if (row.status !== 'IN_PROGRESS' || !row.hash) return row;
      const wallet = await store.findWallet(row.apiKey, row.sourceWalletId);
      if (!wallet) return row;
      const outcome = await confirm(wallet, row.hash, null, false).catch((): Outcome => 'PENDING');
      if (outcome === 'PENDING') return row;
      const moves = transferMoves(row.id);
      if (outcome === 'CONFIRMED') await moves.confirmed(transferJob(row));
      else await moves.failed(transferJob(row), 'failed on chain', false);
      return (await store.findTransferById(row.id)) ?? row;
    },
  };
}

export type SandboxExecutor = ReturnType<typeof createExecutor>;
