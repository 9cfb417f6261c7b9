import type { SubmittableTransaction } from 'xrpl';
import { auditActor, SYSTEM_ACTOR, type Actor } from '../../platform/audit/actor.js';
import type { Clock } from '../../platform/clock.js';
import { newId } from '../../platform/clock.js';
import type { Db, DbOrTx } from '../../platform/db/client.js';
import { appendEventStatement } from '../../platform/events/outbox.js';
import { writeTogether } from '../../platform/db/write-together.js';
import type { RunInTx } from '../../platform/db/tx.js';
import { crashPoint, inFlightFlow } from '../../platform/module/in-flight.js';
import { eq } from 'drizzle-orm';
import { XrplLedgerError, type XrplLedgerPort } from '../../providers/xrpl-ledger/port.js';
import { xrplSubmissions, type XrplSubmissionRow } from '../wallets/table.js';
import { onLedger, XrplErrors } from './xrpl-errors.js';
import type { XrplRepo } from './xrpl-repo.js';
import type { AuditService } from '../audit/service.js';

export interface SubmissionDto {
  submissionId: string;
  hash: string;
  account: string;
  transactionType: string;
  sequence: number;
  lastLedgerSequence: number;
  /** submitted (sent, not final yet), validated (in a validated ledger; see `result`), failed, expired. */
  status: XrplSubmissionRow['status'];
  /** The preliminary result of the last submit; not final. */
  engineResult: string | null;
  /** The final result once validated (tesSUCCESS, or a tec code that took the fee only). */
  result: string | null;
  ledgerIndex: number | null;
  validated: boolean;
}

export const toSubmissionDto = (row: XrplSubmissionRow): SubmissionDto => ({
  submissionId: row.id,
  hash: row.hash,
  account: row.account,
  transactionType: row.transactionType,
  sequence: row.sequence,
  lastLedgerSequence: row.lastLedgerSequence,
  status: row.status,
  engineResult: row.engineResult,
  result: row.result,
  ledgerIndex: row.ledgerIndex,
  validated: row.status === 'validated',
});

/** Results that leave the transaction possibly applied later: keep following it. */
const stillPossible = (engine: string) => engine === 'tesSUCCESS' || engine.startsWith('ter') || engine.startsWith('tec') || engine === 'tefALREADY';

export interface XrplSubmissionsOptions {
  db: Db;
  repo: XrplRepo;
  tx: RunInTx;
  clock: Clock;
  ledger: XrplLedgerPort;
  /** Audit rows of each submission and its final outcome (as custody-a's transfers). */
  audit: AuditService;
  /** How long a request waits for the transaction to be final before answering `submitted`. */
  finalTimeoutMs: number;
  /** How long a request or a sweep holds a submission it follows before another may take it (default 5 s). */
  leaseMs?: number;
}

/**
 * Reliable submission: every transaction is stored (hash, account, sequence,
 * LastLedgerSequence) before it is sent, then followed until it is validated or its
 * LastLedgerSequence has passed. terPRE_SEQ is resubmitted at each look until it applies or
 * expires; tefPAST_SEQ is reported (failed) unless the same transaction is already in a
 * ledger. Submissions of one account are serialized in this process (a queue per account) and,
 * for the sequence the service chooses, across instances (an advisory lock while the sequence is
 * reserved: it is above every in-flight transaction of the account).
 *
 * Following is leased (platform/module/in-flight.ts): the request that sent a transaction holds
 * its row's lease while it waits, renewing it at every look; a row whose lease has passed (the
 * request stopped waiting, or its process died) is claimed by the in-flight sweeper of one
 * instance and followed from there, the stored blob sent again if the ledger never got it.
 */
export function createXrplSubmissions(options: XrplSubmissionsOptions) {
  const { repo, tx, clock, ledger, finalTimeoutMs, audit } = options;
  const leaseMs = options.leaseMs ?? 5000;
  const leaseFrom = (at: Date) => new Date(at.getTime() + leaseMs);
  const lanes = new Map<string, Promise<unknown>>();
  /** Ids of the submissions a request or the sweep of this process is following right now. */
  const following = new Set<string>();

  function inLane<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = lanes.get(key) ?? Promise.resolve();
    const run = previous.then(work, work);
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    lanes.set(key, settled);
    void settled.then(() => {
      if (lanes.get(key) === settled) lanes.delete(key);
    });
    return run;
  }

  /** The facts a submission's events and audit rows carry (no blob). */
  const factsOf = (row: XrplSubmissionRow) => ({
    submissionId: row.id, userId: row.userId, network: row.network, hash: row.hash, account: row.account,
    transactionType: row.transactionType, sequence: row.sequence, status: row.status,
  });

  /**
   * A new submission, as custody-a's transfers: a `transfer.submitted` event (kind
   * `xrpl-submission`) and a `transfer.submitted` audit row, in the transaction that stores it.
   */
  async function recordSubmitted(db: DbOrTx, row: XrplSubmissionRow, actor: Actor): Promise<void> {
    const facts = factsOf(row);
    await writeTogether(db, [appendEventStatement(db, row.tenantId, 'transfer.submitted', { ...facts, kind: 'xrpl-submission', actor }), audit.statement(row.tenantId, { type: 'transfer.submitted', ...auditActor(actor), subjectUserId: row.userId, details: facts })]);
  }

  /**
   * Records a change; when it makes the submission final (only the change that moves it from
   * `submitted` does: a second follower finds it final and records nothing), writes
   * `transfer.completed` (validated with tesSUCCESS) or `transfer.failed` (failed, expired, or a
   * tec result that took the fee only) and a `transfer.updated` audit row, in one transaction.
   */
  const update = async (row: XrplSubmissionRow, changes: Parameters<XrplRepo['updateSubmission']>[2]): Promise<XrplSubmissionRow> => {
    if (!changes.status || changes.status === 'submitted') {
      return repo.updateSubmission(row.tenantId, row.id, { ...changes, updatedAt: clock.now() }).then((r) => r ?? row);
    }
    return tx(async (db) => {
      const updated = await repo.updateSubmission(row.tenantId, row.id, { ...changes, updatedAt: clock.now() }, db, { onlyIfStatus: 'submitted' });
      if (!updated) return (await repo.findSubmissionByHash(row.tenantId, row.network, row.hash, db)) ?? row;
      const facts = { ...factsOf(updated), engineResult: updated.engineResult, result: updated.result, ledgerIndex: updated.ledgerIndex };
      const completed = updated.status === 'validated' && updated.result === 'tesSUCCESS';
      await writeTogether(db, [appendEventStatement(db, row.tenantId, completed ? 'transfer.completed' : 'transfer.failed', { ...facts, kind: 'xrpl-submission' }), audit.statement(row.tenantId, { type: 'transfer.updated', ...auditActor(SYSTEM_ACTOR), subjectUserId: updated.userId, details: facts })]);
      return updated;
    });
  };

  /** Sends the stored blob once and records the preliminary result. */
  async function send(row: XrplSubmissionRow): Promise<XrplSubmissionRow> {
    let engineResult: string;
    let message = '';
    try {
      await crashPoint('xrpl-submission.before-send');
      const answer = await ledger.submit(row.txBlob);
      await crashPoint('xrpl-submission.after-send');
      engineResult = answer.engineResult;
      message = answer.engineResultMessage;
    } catch (error) {
      if (error instanceof XrplLedgerError && error.kind === 'invalid_transaction') {
        return update(row, { status: 'failed', engineResult: 'invalidTransaction', attempts: row.attempts + 1 });
      }
      // Not reachable: the row stays `submitted`; the follower sends it again.
      return update(row, { attempts: row.attempts + 1 });
    }
    if (engineResult === 'tefPAST_SEQ') {
      // The sequence is used: by this very transaction (a resend) or by another one.
      const found = await ledger.lookupTransaction(row.hash).catch(() => undefined);
      if (found?.found) return update(row, { engineResult, attempts: row.attempts + 1 });
    }
    if (stillPossible(engineResult)) return update(row, { engineResult, attempts: row.attempts + 1 });
    const failed = await update(row, { status: 'failed', engineResult, attempts: row.attempts + 1 });
    return Object.assign(failed, { engineMessage: message });
  }

  /** Follows a sent transaction until final or until `timeoutMs` passes (then it stays `submitted`). */
  async function follow(row: XrplSubmissionRow, timeoutMs = finalTimeoutMs): Promise<XrplSubmissionRow> {
    following.add(row.id);
    try {
      const current = await followUntil(row, timeoutMs);
      // Stopped waiting, not final: the lease is let go, the next sweep takes it on.
      if (current.status === 'submitted') await flow.hold(current.id, clock.now());
      return current;
    } finally {
      following.delete(row.id);
    }
  }

  async function followUntil(row: XrplSubmissionRow, timeoutMs: number): Promise<XrplSubmissionRow> {
    let current = row;
    const slice = Math.min(1000, Math.max(50, timeoutMs));
    for (let waited = 0; current.status === 'submitted' && waited < timeoutMs; waited += slice) {
      await flow.hold(current.id, leaseFrom(clock.now()));
      let outcome;
      try {
        outcome = await ledger.waitForFinal(current.hash, current.lastLedgerSequence, { timeoutMs: slice });
      } catch {
        continue; // the ledger does not answer: look again
      }
      if (outcome.status === 'validated') return update(current, { status: 'validated', result: outcome.result, ledgerIndex: outcome.ledgerIndex });
      if (outcome.status === 'expired') return update(current, { status: 'expired' });
      // Held for a missing sequence, or never reached the server: send again (the same blob, the same hash).
      if (current.engineResult === null || current.engineResult.startsWith('ter')) current = await send(current);
    }
    return current;
  }

  /**
   * One look at every transaction still in flight that nobody in this process is following
   * (left by a request that stopped waiting, or by a previous run): each is followed for at
   * most `timeoutMs`, sent again if it is held or never arrived, and marked validated or
   * expired once it is. Returns how many it looked at.
   */
  async function sweep(timeoutMs = 1000, limit = 100): Promise<number> {
    const now = clock.now();
    const rows = (await flow.claim(now, leaseFrom(now), limit)).filter((row) => !following.has(row.id));
    await Promise.all(rows.map((row) => follow(row, timeoutMs)));
    return rows.length;
  }

  /** The in-flight flow the platform's sweeper drives: a claimed row is followed for a second at most. */
  const flow = inFlightFlow(
    options.db,
    { name: 'xrpl submission', table: xrplSubmissions, id: xrplSubmissions.id, leaseUntil: xrplSubmissions.leaseUntil, inFlight: eq(xrplSubmissions.status, 'submitted'), order: xrplSubmissions.updatedAt },
    async (row) => {
      if (!following.has(row.id)) await follow(row, 1000);
    },
  );

  function rowFor(tenantId: string, userId: string | null, network: string, signed: { tx: Record<string, unknown>; hash: string; blob: string }): Omit<XrplSubmissionRow, 'tenantId'> {
    // The request that stores it follows it: it holds the lease (renewed at every look).
    const now = clock.now();
    return {
      id: newId(),
      userId,
      network,
      hash: signed.hash,
      account: String(signed.tx.Account),
      transactionType: String(signed.tx.TransactionType),
      sequence: Number(signed.tx.Sequence ?? 0),
      lastLedgerSequence: Number(signed.tx.LastLedgerSequence),
      txBlob: signed.blob.toUpperCase(),
      status: 'submitted',
      engineResult: null,
      result: null,
      ledgerIndex: null,
      attempts: 0,
      leaseUntil: leaseFrom(now),
      createdAt: now,
      updatedAt: now,
    };
  }

  /** The tef/tem/tel result of a failed row as a 409, else the row. */
  function finalOrRefused(row: XrplSubmissionRow): XrplSubmissionRow {
    if (row.status === 'failed') throw XrplErrors.refused(row.engineResult ?? 'unknown', (row as { engineMessage?: string }).engineMessage ?? '');
    return row;
  }

  return {
    /**
     * Tracks and submits a blob signed elsewhere (its sequence is its own). The same blob again
     * answers the same tracked transaction (followed again if it is not final).
     */
    async submitSigned(tenantId: string, userId: string, network: string, signed: { tx: Record<string, unknown>; hash: string; blob: string }, actor: Actor): Promise<XrplSubmissionRow> {
      const sent = await inLane(`${network}:${String(signed.tx.Account)}`, async () => {
        const { row, created } = await tx(async (db) => {
          const inserted = await repo.insertSubmission(tenantId, rowFor(tenantId, userId, network, signed), db);
          if (inserted.created) await recordSubmitted(db, inserted.row, actor);
          return inserted;
        });
        return created ? send(row) : row;
      });
      return finalOrRefused(await follow(sent));
    },

    /**
     * Autofills a transaction from the ledger, gives it a sequence above every in-flight
     * transaction of the account (under the account's lock), signs it (`sign` returns the
     * signed blob and hash), stores it, sends it and follows it until final.
     */
    async signAndSubmit(
      tenantId: string,
      userId: string | null,
      network: string,
      transaction: SubmittableTransaction,
      sign: (filled: SubmittableTransaction) => { tx_blob: string; hash: string },
      actor: Actor,
      signersCount?: number,
    ): Promise<XrplSubmissionRow> {
      const sent = await inLane(`${network}:${transaction.Account}`, async () => {
        const filled = await onLedger(() => ledger.autofill({ ...transaction }, signersCount ? { signersCount } : {}));
        const validatedIndex = Number(filled.LastLedgerSequence) - 20;
        const row = await tx(async (db) => {
          await repo.lockAccount(network, transaction.Account, db);
          const inFlight = await repo.maxInFlightSequence(network, transaction.Account, validatedIndex, db);
          if (inFlight !== undefined && inFlight >= Number(filled.Sequence)) filled.Sequence = inFlight + 1;
          const signed = sign(filled);
          const inserted = await repo.insertSubmission(tenantId, rowFor(tenantId, userId, network, { tx: filled as never, hash: signed.hash, blob: signed.tx_blob }), db);
          if (inserted.created) await recordSubmitted(db, inserted.row, actor);
          return inserted.row;
        });
        return send(row);
      });
      return finalOrRefused(await follow(sent));
    },

    sweep,
    flow,
  };
}

export type XrplSubmissions = ReturnType<typeof createXrplSubmissions>;
