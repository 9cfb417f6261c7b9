import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Hex } from 'viem';
import { FINAL_TRANSACTION_STATUSES, FINAL_TRANSFER_STATUSES, type CustodyTransactionStatus, type TransferStatus } from '../../port.js';
import { signWebhook, WEBHOOK_SIGNATURE_HEADER, WEBHOOK_TIMESTAMP_HEADER, newP256KeyPair } from '../signing.js';
import { accountSetTx, confirmEvm, confirmXrpl, Refused, sendEvm, sendXrpl, xrpPayment, type Outcome } from './chains.js';
import { transactionDto, transferDto, walletKeyContext, type CustodyASandboxOptions } from './context.js';
import type { SandboxStore } from './store.js';
import type { SandboxTransactionRow, SandboxTransferRow, SandboxWalletRow } from './table.js';

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

  async function webhookKey(): Promise<{ publicKeyPem: string; privateKeyPem: string }> {
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
  function notify(apiKey: string, type: string, data: unknown): void {
    background.run('custody-a sandbox webhook', async () => {
      const client = await store.findClient(apiKey);
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

  async function setTransaction(row: SandboxTransactionRow, status: CustodyTransactionStatus, patch: Partial<SandboxTransactionRow> = {}): Promise<SandboxTransactionRow> {
    const updated = await store.updateTransaction(row.id, { ...patch, status, updatedAt: clock.now() });
    notify(row.apiKey, 'transaction.status_changed', transactionDto(updated));
    return updated;
  }

  async function setTransfer(row: SandboxTransferRow, status: TransferStatus, patch: Partial<SandboxTransferRow> = {}): Promise<SandboxTransferRow> {
    const updated = await store.updateTransfer(row.id, { ...patch, status, updatedAt: clock.now() });
    notify(row.apiKey, 'transfer.status_changed', transferDto(updated));
    return updated;
  }

  const walletKey = (wallet: SandboxWalletRow) => secrets.decrypt(wallet.keySealed, walletKeyContext(wallet.id));

  /** Signs and sends; answers the hash (and XRPL LastLedgerSequence). */
  async function send(wallet: SandboxWalletRow, request: Record<string, unknown>, type: 'TRANSFER' | 'ACCOUNT_SET'): Promise<{ hash: string; lls?: number }> {
    const key = await walletKey(wallet);
    if (wallet.blockchain === 'ETHEREUM') {
      const hash = await sendEvm(chains, key as Hex, {
        to: String(request.destinationAddress),
        qty: String(request.qty),
        contract: (request.contract as string | undefined) ?? null,
        deductFee: request.deductFee === true,
        ...(typeof request.symbol === 'string' ? { symbol: request.symbol } : {}),
      });
      return { hash };
    }
    const sequence = request.sequence === undefined ? undefined : Number(request.sequence);
    const build = type === 'ACCOUNT_SET' ? accountSetTx(Number(request.setFlag)) : xrpPayment(String(request.destinationAddress), String(request.qty));
    const sent = await sendXrpl(chains, key, build, sequence);
    return { hash: sent.hash, lls: sent.lastLedgerSequence };
  }

  const confirm = (wallet: { blockchain: string }, hash: string, lls: string | null, wait: boolean): Promise<Outcome> =>
    wallet.blockchain === 'ETHEREUM' ? confirmEvm(chains, hash as Hex, wait) : confirmXrpl(chains, hash, Number(lls ?? 0), wait);

  async function runTransaction(row: SandboxTransactionRow): Promise<void> {
    const wallet = (await store.findWallet(row.apiKey, row.walletId))!;
    await serialized(wallet.id, async () => {
      let current = await setTransaction(row, 'APPROVED');
      try {
        const sent = await send(wallet, row.request, row.type);
        current = await setTransaction(current, 'PUBLISHED', { hash: sent.hash, lastLedgerSequence: sent.lls === undefined ? null : String(sent.lls) });
      } catch (error) {
        const reason = error instanceof Refused ? error.message : `could not be sent: ${(error as Error).message}`;
        await setTransaction(current, error instanceof Refused ? 'REJECTED' : 'FAILED', { failureReason: reason });
        return;
      }
      const outcome = await confirm(wallet, current.hash!, current.lastLedgerSequence, true);
      if (outcome !== 'PENDING') await setTransaction(current, outcome, outcome === 'FAILED' ? { failureReason: 'failed on chain' } : {});
      else await setTransaction(current, 'CONFIRMATION_PENDING');
    });
  }

  async function runTransfer(row: SandboxTransferRow): Promise<void> {
    const wallet = (await store.findWallet(row.apiKey, row.sourceWalletId))!;
    await serialized(wallet.id, async () => {
      let current = row;
      try {
        const sent = await send(wallet, { destinationAddress: row.destinationAddress, qty: row.amount, deductFee: row.deductFee }, 'TRANSFER');
        current = await setTransfer(current, 'IN_PROGRESS', { hash: sent.hash });
      } catch (error) {
        const reason = error instanceof Refused ? error.message : `could not be sent: ${(error as Error).message}`;
        await setTransfer(current, 'FAILED', { failureReason: reason });
        return;
      }
      const outcome = await confirm(wallet, current.hash!, null, true);
      if (outcome === 'CONFIRMED') await setTransfer(current, 'COMPLETED');
      else if (outcome === 'FAILED') await setTransfer(current, 'FAILED', { failureReason: 'failed on chain' });
    });
  }

  return {
    webhookKey,
    /** Starts the work of a new transaction after the answer (the provider works asynchronously). */
    startTransaction(row: SandboxTransactionRow): void {
      background.run('custody-a sandbox transaction', () => runTransaction(row));
    },
    startTransfer(row: SandboxTransferRow): void {
      background.run('custody-a sandbox transfer', () => runTransfer(row));
    },
    /** A read looks at the chain again for a published transaction (e.g. after a restart). */
    async refreshTransaction(row: SandboxTransactionRow): Promise<SandboxTransactionRow> {
      if (FINAL_TRANSACTION_STATUSES.includes(row.status as CustodyTransactionStatus) || !row.hash) return row;
      const wallet = await store.findWallet(row.apiKey, row.walletId);
      if (!wallet) return row;
      const outcome = await confirm(wallet, row.hash, row.lastLedgerSequence, false);
      return outcome === 'PENDING' ? row : setTransaction(row, outcome);
    },
    async refreshTransfer(row: SandboxTransferRow): Promise<SandboxTransferRow> {
      if (FINAL_TRANSFER_STATUSES.includes(row.status as TransferStatus) || !row.hash) return row;
      const wallet = await store.findWallet(row.apiKey, row.sourceWalletId);
      if (!wallet) return row;
      const outcome = await confirm(wallet, row.hash, null, false);
      return outcome === 'PENDING' ? row : setTransfer(row, outcome === 'CONFIRMED' ? 'COMPLETED' : 'FAILED');
    },
  };
}

export type SandboxExecutor = ReturnType<typeof createExecutor>;
