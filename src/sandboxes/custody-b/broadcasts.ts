import { and, eq } from 'drizzle-orm';
import { keccak256, parseTransaction, type Hex, type PrivateKeyAccount } from 'viem';
import { crashPoint, inFlightFlow } from '../../platform/module/in-flight.js';
import { broadcastSignedEvm } from '../../providers/evm-chain/broadcast.js';
import { broadcastSignedXrpl } from '../../providers/xrpl-ledger/broadcast.js';
import type { CustodyBSandboxOptions } from './options.js';
import { SandboxError } from './errors.js';
import type { SandboxStore } from './store.js';
import { custodyBSandboxSignatures, type CustodyBSandboxSignatureRow } from './table.js';
import { isXrplNetwork } from './xrpl.js';

/** After this many claims a broadcast the chain never answered fails with the last reason. */
const MAX_ATTEMPTS = 20;

/**
 * The provider's broadcasts, durable: a transaction is signed, stored `Broadcasting` with its
 * signed bytes and hash, then sent; `Broadcasted` once the chain has it. A process that stops
 * in between leaves the row to the in-flight sweeper, which sends the same bytes again (the
 * same hash: a resend of a transaction the chain has is that transaction), or records `Failed`
 * with the reason when it can never be (its nonce or sequence went to another transaction, or
 * the chain refuses it). It is never signed again: the user authorized these bytes.
 */
export function createBroadcasts(options: CustodyBSandboxOptions, store: SandboxStore) {
  const { clock } = options;
  const t = custodyBSandboxSignatures;
  const leaseFrom = (at: Date) => new Date(at.getTime() + options.inFlight.sweeper.leaseMs);

  async function finish(row: CustodyBSandboxSignatureRow, status: 'Broadcasted' | 'Failed', failureReason: string | null): Promise<CustodyBSandboxSignatureRow> {
    const [moved] = await options.db.update(t).set({ status, failureReason }).where(and(eq(t.id, row.id), eq(t.status, 'Broadcasting'))).returning();
    return moved ?? (await options.db.select().from(t).where(eq(t.id, row.id)).limit(1))[0] ?? row;
  }

  /** Sends the stored signed transaction; answers the row as it stands after. */
  async function send(row: CustodyBSandboxSignatureRow): Promise<CustodyBSandboxSignatureRow> {
    if (row.status !== 'Broadcasting' || !row.signedData || !row.txHash) return row;
    const wallet = await store.wallet(row.orgId, row.walletId);
    if (!wallet) return finish(row, 'Failed', 'the wallet is gone');
    await crashPoint('custody-b.before-send');
    const outcome = isXrplNetwork(wallet.network)
      ? await broadcastSignedXrpl(options.xrplLedger, row.signedData, row.txHash)
      : await broadcastSignedEvm(await options.evmChain(), row.signedData as Hex, row.txHash as Hex);
    await crashPoint('custody-b.after-send');
    if (outcome === 'sent') return finish(row, 'Broadcasted', null);
    if (outcome === 'replaced') return finish(row, 'Failed', 'its nonce or sequence went to another transaction: it can never be included');
    if ('refused' in outcome) return finish(row, 'Failed', `the chain refused it: ${outcome.refused}`);
    if (row.attempts >= MAX_ATTEMPTS) return finish(row, 'Failed', `the chain did not answer: ${outcome.retry}`);
    return row; // the lease brings it back
  }

  const flow = inFlightFlow(
    options.db,
    { name: 'custody-b sandbox broadcast', table: t, id: t.id, leaseUntil: t.leaseUntil, attempts: t.attempts, inFlight: eq(t.status, 'Broadcasting'), order: t.createdAt },
    async (row) => {
      await send(row);
    },
  );
  // Registered with the routes (served only while sandboxes are on): without sandboxes the
  // schema `sandbox` does not exist, and the sweeper must not look for these rows.
  let registered = false;

  return {
    /** Hands the stored broadcasts to the platform's sweeper (once). */
    registerFlow(): void {
      if (registered) return;
      registered = true;
      options.inFlight.register(flow);
    },
    /** Signs an unsigned EVM transaction for the local chain (its chain id checked): the raw bytes and hash. */
    async signEvm(account: PrivateKeyAccount, transaction: string): Promise<{ raw: Hex; hash: Hex }> {
      try {
        const chain = await options.evmChain();
        const tx = parseTransaction(transaction as Hex);
        if (tx.chainId !== undefined && tx.chainId !== chain.chainId) throw new Error(`the transaction is for chain ${tx.chainId}, not ${chain.chainId}`);
        const raw = await account.signTransaction({ ...tx, chainId: tx.chainId ?? chain.chainId });
        return { raw, hash: keccak256(raw) };
      } catch (error) {
        throw new SandboxError(400, `Bad request: the transaction was not broadcast: ${error instanceof Error ? ((error as { shortMessage?: string }).shortMessage ?? error.message.split('\n')[0]) : 'invalid'}`);
      }
    },

    /**
     * Stores the signed transaction (`Broadcasting`, leased by this request) and sends it.
     * Answers the row; a refusal is the caller's 400, a chain that did not answer a 503 (the
     * row stays in flight and is sent again by the sweeper: the answer says so).
     */
    async broadcast(row: Omit<typeof t.$inferInsert, 'status' | 'leaseUntil' | 'attempts'>): Promise<CustodyBSandboxSignatureRow> {
      const [stored] = await options.db.insert(t).values({ ...row, status: 'Broadcasting', leaseUntil: leaseFrom(clock.now()), attempts: 1 }).returning();
      const sent = await send(stored!);
      if (sent.status === 'Failed') throw new SandboxError(400, `Bad request: the transaction was not broadcast: ${sent.failureReason ?? 'refused'}`);
      if (sent.status !== 'Broadcasted') {
        await flow.hold(sent.id, clock.now());
        throw new SandboxError(503, `Service unavailable: the chain did not answer; the signed transaction ${sent.txHash} is kept and sent again until it is taken or refused`);
      }
      return sent;
    },
  };
}

export type Broadcasts = ReturnType<typeof createBroadcasts>;
