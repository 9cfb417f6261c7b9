import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { Db } from '../db/client.js';
import { createMailQueue } from './queue.js';
import type { MailRow } from './table.js';
import type { MailTransport } from './transport.js';
import { createPoller } from '../module/poller.js';

/** Wait before attempt n+1 after n failed attempts; the last value repeats. */
export const RETRY_DELAYS_MS = [5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 7_200_000, 14_400_000];
export const DEFAULT_MAX_ATTEMPTS = 10;

export function retryDelayMs(failedAttempts: number): number {
  return RETRY_DELAYS_MS[Math.min(Math.max(failedAttempts, 1), RETRY_DELAYS_MS.length) - 1]!;
}

export interface MailWorkerOptions {
  db: Db;
  transport: MailTransport;
  clock: Clock;
  logger: Logger;
  /** Sender of every message (MAIL_FROM). */
  from: string;
  batchSize?: number;
  /** Attempts before a message is marked `failed`. */
  maxAttempts?: number;
  pollIntervalMs?: number;
  /** How long a claimed row stays leased to this worker; longer than any one send can take. */
  leaseMs?: number;
  /**
   * Deliver only the mail of these tenants. Unset in the service (one queue for all tenants);
   * test harnesses set it so suites sharing one database do not deliver each other's mail.
   */
  tenantIds?: () => readonly string[];
  /** Counts each message's outcome (metrics): sent, retry (failed, tried again later) or failed (given up). */
  onOutcome?: (outcome: 'sent' | 'retry' | 'failed') => void;
}

export interface MailWorker {
  /** Polls the outbox every `pollIntervalMs` (default 500 ms) on an unref'd timer. */
  start(): void;
  /** Stops polling and waits for the batch in flight. */
  stop(): Promise<void>;
  /** Claims and handles one batch of due mail; resolves with the number handled (sent, retried or failed). */
  drainOnce(): Promise<number>;
}

/**
 * A short description of a delivery failure for the row and the log: error code, SMTP reply
 * code and the first line of the error message. Never any part of the message itself.
 */
export function describeMailError(error: unknown): string {
  const e = (error ?? {}) as { code?: unknown; responseCode?: unknown; command?: unknown; message?: unknown };
  const parts: string[] = [];
  if (typeof e.code === 'string') parts.push(e.code);
  if (typeof e.responseCode === 'number') parts.push(String(e.responseCode));
  if (typeof e.command === 'string') parts.push(`(${e.command.split(' ')[0]})`);
  const message = typeof e.message === 'string' ? e.message.split(/\r?\n/)[0]!.slice(0, 300) : 'unknown error';
  return `${parts.join(' ')}${parts.length ? ': ' : ''}${message}`;
}

/** A recipient refused by the server for good (5xx to RCPT TO): retrying cannot help. */
function isPermanent(error: unknown): boolean {
  const e = (error ?? {}) as { code?: unknown; responseCode?: unknown };
  return e.code === 'EENVELOPE' && typeof e.responseCode === 'number' && e.responseCode >= 500 && e.responseCode < 600;
}

/**
 * Delivers the mail outbox: claims due rows (safe with several instances), sends each through
 * the transport, and records the outcome. A failure is retried after RETRY_DELAYS_MS until
 * `maxAttempts`, then the row is `failed`. Logs ids, attempt counts and errors, never bodies.
 */
export function createMailWorker(options: MailWorkerOptions): MailWorker {
  const { transport, clock, from } = options;
  const logger = options.logger.child({ component: 'mail-worker' });
  const queue = createMailQueue(options.db);
  const batchSize = options.batchSize ?? 10;
  const maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  const pollIntervalMs = options.pollIntervalMs ?? 500;
  const leaseMs = options.leaseMs ?? 5 * 60_000;

  /** Sends one message; a failure is recorded at once (retry or give up). Answers whether it was sent. */
  async function deliver(row: MailRow): Promise<boolean> {
    const ids = { mailId: row.id, tenantId: row.tenantId, attempts: row.attempts };
    let error: unknown;
    try {
      await transport.send({ id: row.id, from, to: row.to, subject: row.subject, text: row.text, html: row.html });
      return true;
    } catch (caught) {
      error = caught ?? new Error('unknown error');
    }
    try {
      const reason = describeMailError(error);
      if (row.attempts >= maxAttempts || isPermanent(error)) {
        await queue.markFailed(row.tenantId, row.id, row.attempts, reason);
        options.onOutcome?.('failed');
        logger.error({ ...ids, error: reason }, 'mail delivery failed; giving up');
        return false;
      }
      const nextAttemptAt = new Date(clock.now().getTime() + retryDelayMs(row.attempts));
      await queue.markRetry(row.tenantId, row.id, row.attempts, nextAttemptAt, reason);
      options.onOutcome?.('retry');
      logger.warn({ ...ids, error: reason, nextAttemptAt: nextAttemptAt.toISOString() }, 'mail delivery failed; will retry');
    } catch (dbError) {
      // The lease brings the row back; nothing is lost.
      logger.error({ ...ids, error: describeMailError(dbError) }, 'could not record the mail delivery outcome');
    }
    return false;
  }

  /**
   * Records the batch's sent messages in one statement. A crash before it leaves them leased:
   * they are sent again when the lease ends (mail is delivered at least once, each message
   * under its one Message-ID), at most a batch of them.
   */
  async function recordSent(sent: MailRow[]): Promise<void> {
    if (sent.length === 0) return;
    let recorded: Set<string>;
    try {
      recorded = await queue.markSentMany(sent, clock.now());
    } catch (dbError) {
      const error = describeMailError(dbError);
      for (const row of sent) logger.error({ mailId: row.id, tenantId: row.tenantId, attempts: row.attempts, error }, 'could not record the mail delivery outcome');
      return;
    }
    for (const row of sent) {
      const ids = { mailId: row.id, tenantId: row.tenantId, attempts: row.attempts };
      if (recorded.has(row.id)) {
        options.onOutcome?.('sent');
        logger.info(ids, 'mail sent');
      } else logger.warn(ids, 'mail sent, but its lease had passed to another worker');
    }
  }

  async function batch(): Promise<number> {
    const now = clock.now();
    const rows = await queue.claimDue(now, batchSize, new Date(now.getTime() + leaseMs), options.tenantIds?.());
    const sent: MailRow[] = [];
    for (const row of rows) if (await deliver(row)) sent.push(row);
    await recordSent(sent);
    return rows.length;
  }

  // One batch at a time per worker, whether started by the timer or by a test; a full batch polls again at once.
  const poller = createPoller({
    run: batch,
    intervalMs: pollIntervalMs,
    nextDelay: (handled) => (handled >= batchSize ? 0 : pollIntervalMs),
    onError: (error) => logger.error({ error: describeMailError(error) }, 'mail outbox poll failed'),
  });
  return { start: poller.start, stop: poller.stop, drainOnce: poller.runOnce };
}
