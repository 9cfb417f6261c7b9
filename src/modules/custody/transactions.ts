import type { SQLWrapper } from 'drizzle-orm';
import type { CallContext } from '../../platform/http/context.js';
import { auditActor, SYSTEM_ACTOR, type Actor } from '../../platform/audit/actor.js';
import { createHash } from 'node:crypto';
import { newId, type Clock } from '../../platform/clock.js';
import type { DbOrTx } from '../../platform/db/client.js';
import type { RunInTx } from '../../platform/db/tx.js';
import { appendEventStatement } from '../../platform/events/outbox.js';
import { writeTogether } from '../../platform/db/write-together.js';
import { beforeEffects } from '../../platform/idempotency/before-effects.js';
import { FINAL_TRANSACTION_STATUSES, type CustodyTransaction, type CustodyTransactionStatus } from '../../providers/custody/port.js';
import type { AuditService } from '../audit/service.js';
import type { WalletsService } from '../wallets/service.js';
import type { WalletRow } from '../wallets/table.js';
import { notFoundAs } from '../../platform/providers/errors.js';
import { CustodyErrors } from './errors.js';
import { CUSTODY_A, type CustodyAProvider } from './provider.js';
import type { CustodyRepo } from './repo.js';
import type { TransactionDto, TransferBody, UpdateWalletBody } from './schemas.js';
import type { CustodyTransactionRow, CustodyVaultRow } from './table.js';
import { checkContract, checkEvmAddress, checkQty, checkXrplAddress } from './validation.js';
import { transactionStatusRank } from './status-order.js';
import { type VaultsService } from './vaults.js';

/** The order statuses move in (status-order.ts); a webhook or read never moves a transaction back. */
const rank = transactionStatusRank;
const ASF_DEFAULT_RIPPLE = 8;

export function transactionDto(row: CustodyTransactionRow): TransactionDto {
  return {
    transactionId: row.id, vaultId: row.vaultId, walletId: row.walletId, type: row.type, status: row.status,
    symbol: row.symbol, qty: row.qty, destinationAddress: row.destinationAddress, contract: row.contract,
    hash: row.hash, failureReason: row.failureReason, createdAt: row.createdAt.toISOString(), updatedAt: row.updatedAt.toISOString(),
  };
}

/** The provider-side key of an idempotent request: one per tenant caller and key, so two users' keys never meet. */
export const externalIdOf = (callerKey: string, key: string) => createHash('sha256').update(`${callerKey}\n${key}`).digest('hex').slice(0, 48);

export function createTransactionsService(deps: {
  repo: CustodyRepo;
  tx: RunInTx;
  clock: Clock;
  wallets: WalletsService;
  vaults: VaultsService;
  audit: AuditService;
  provider: CustodyAProvider;
}) {
  const { repo, tx, clock, wallets, vaults, audit, provider } = deps;

  async function walletOf(ctx: CallContext, vaultId: string, walletId: string): Promise<{ vault: CustodyVaultRow; wallet: WalletRow }> {
    const { tenantId } = ctx;
    const vault = await vaults.visibleVault(ctx, vaultId);
    const wallet = await wallets.findById(tenantId, walletId);
    if (!wallet || wallet.vaultId !== vault.id || wallet.provider !== CUSTODY_A || !wallet.providerRef) throw CustodyErrors.walletNotFound();
    return { vault, wallet };
  }

  /**
   * Moves the row forward to what the provider says (under the row's lock: a webhook and a read
   * at once record one change); writes the event and audit row of a change. `locked`: `stale`
   * was read under the lock in this transaction already.
   */
  async function apply(db: DbOrTx, tenantId: string, stale: CustodyTransactionRow, seen: CustodyTransaction, by: Actor, locked = false): Promise<CustodyTransactionRow> {
    if (rank(seen.status) <= rank(stale.status) && !(seen.hash && !stale.hash)) return stale;
    const row = locked ? stale : ((await repo.lockTransaction(tenantId, stale.id, db)) ?? stale);
    if (rank(seen.status) <= rank(row.status) && !(seen.hash && !row.hash)) return row;
    const status = rank(seen.status) > rank(row.status) ? seen.status : row.status;
    // The row is locked: the update's outcome is known, and it commits with its event and audit
    // row in one statement.
    const patch = { status, hash: seen.hash ?? row.hash, failureReason: seen.failureReason ?? row.failureReason, updatedAt: clock.now() };
    const updated: CustodyTransactionRow = { ...row, ...patch };
    const writes: SQLWrapper[] = [repo.updateTransactionStatement(tenantId, row.id, patch, db)];
    if (status !== row.status) {
      const facts = { transactionId: row.id, vaultId: row.vaultId, walletId: row.walletId, status, hash: updated.hash };
      const final = FINAL_TRANSACTION_STATUSES.includes(status as CustodyTransactionStatus);
      if (final) writes.push(appendEventStatement(db, tenantId, status === 'CONFIRMED' ? 'transfer.completed' : 'transfer.failed', { ...facts, kind: 'custody-a.transaction' }));
      writes.push(audit.statement(tenantId, { type: 'custody.transaction_updated', ...auditActor(by), subjectUserId: row.userId, details: facts }));
    }
    await writeTogether(db, writes);
    return updated;
  }

  async function record(ctx: CallContext, vault: CustodyVaultRow, wallet: WalletRow, seen: CustodyTransaction): Promise<CustodyTransactionRow> {
    const { tenantId } = ctx;
    return tx(async (db) => {
      const now = clock.now();
      // Nearly always new: inserted first, and only a provider id recorded before (the same
      // externalId asked again after a crash) is read and moved forward instead.
      const row = await repo.insertTransaction(
        tenantId,
        {
          id: newId(), vaultId: vault.id, walletId: wallet.id, userId: wallet.userId, type: seen.type, providerTransactionId: seen.id,
          externalId: seen.externalId, status: seen.status, symbol: seen.symbol, qty: seen.qty, destinationAddress: seen.destinationAddress,
          contract: seen.contract, hash: seen.hash, failureReason: seen.failureReason, createdAt: now, updatedAt: now,
        },
        db,
      );
      if (!row) return apply(db, tenantId, (await repo.findTransactionByProviderId(tenantId, seen.id, db))!, seen, ctx.actor);
      const facts = { transactionId: row.id, vaultId: vault.id, walletId: wallet.id, type: row.type, status: row.status, symbol: row.symbol, qty: row.qty, destinationAddress: row.destinationAddress };
      await writeTogether(db, [appendEventStatement(db, tenantId, 'transfer.submitted', { ...facts, kind: 'custody-a.transaction', actor: ctx.actor }), audit.statement(tenantId, { type: 'custody.transaction_submitted', ...auditActor(ctx.actor), subjectUserId: wallet.userId, details: facts })]);
      return row;
    });
  }

  return {
    /** Validates and forwards a transfer; `externalId` makes the provider send it at most once. */
    async transfer(ctx: CallContext, vaultId: string, walletId: string, body: TransferBody, externalId: string): Promise<TransactionDto> {
      const { tenantId } = ctx;
      // Nothing changes before the provider is asked: a refusal here gives an Idempotency-Key back.
      const { vault, wallet, input } = await beforeEffects(async () => {
        const { vault, wallet } = await walletOf(ctx, vaultId, walletId);
        let input: { destinationAddress: string; symbol: string; qty: string; contract?: string; sequence?: string };
        if (wallet.chain === 'evm') {
          if (body.sequence !== undefined) throw CustodyErrors.sequenceInvalid();
          const destinationAddress = checkEvmAddress(body.destinationAddress, 'body.destinationAddress');
          if (body.contract === undefined) {
            if (body.symbol !== 'ETH') throw CustodyErrors.symbolUnknown('ETH, or an ERC-20 symbol with body.contract');
          } else {
            checkContract(body.contract);
            if (!/^[A-Za-z0-9]{1,11}$/.test(body.symbol) || body.symbol === 'ETH') throw CustodyErrors.symbolUnknown('the ERC-20 token symbol (letters and digits)');
          }
          input = { destinationAddress, symbol: body.symbol, qty: checkQty(body.qty, 18, 'body.qty'), ...(body.contract ? { contract: body.contract } : {}) };
        } else {
          if (body.contract !== undefined) throw CustodyErrors.contractInvalid();
          if (body.symbol !== 'XRP') throw CustodyErrors.symbolUnknown('XRP for an XRPL wallet');
          if (body.sequence !== undefined && (!/^\d{1,10}$/.test(body.sequence) || Number(body.sequence) > 4294967295)) throw CustodyErrors.sequenceInvalid();
          input = {
            destinationAddress: checkXrplAddress(body.destinationAddress, 'body.destinationAddress'),
            symbol: 'XRP',
            qty: checkQty(body.qty, 6, 'body.qty'),
            ...(body.sequence !== undefined ? { sequence: String(Number(body.sequence)) } : {}),
          };
        }
        return { vault, wallet, input };
      });
      const providerVaultId = String(wallet.details.providerVaultId ?? '');
      const client = await provider.client(tenantId);
      const seen = await notFoundAs(client.transfer(providerVaultId, wallet.providerRef!, { ...input, externalId }), CustodyErrors.walletNotFound);
      return transactionDto(await record(ctx, vault, wallet, seen));
    },

    /** The transaction, refreshed from the provider unless final. */
    async get(ctx: CallContext, vaultId: string, walletId: string, transactionId: string): Promise<TransactionDto> {
      const { tenantId } = ctx;
      const { wallet } = await walletOf(ctx, vaultId, walletId);
      const row = await repo.findTransaction(tenantId, transactionId);
      if (!row || row.walletId !== wallet.id) throw CustodyErrors.transactionNotFound();
      if (FINAL_TRANSACTION_STATUSES.includes(row.status as CustodyTransactionStatus)) return transactionDto(row);
      const client = await provider.client(tenantId);
      const seen = await notFoundAs(client.getTransaction(String(wallet.details.providerVaultId ?? ''), wallet.providerRef!, row.providerTransactionId), CustodyErrors.transactionNotFound);
      return transactionDto(await tx((db) => apply(db, tenantId, row, seen, ctx.actor)));
    },

    /**
     * Renames/describes the wallet at the provider, then in Bastion's own record (the registry
     * wallet's details), which the answer and every later read come from; `accountSet` on an
     * XRPL wallet issues the AccountSet.
     */
    async updateWallet(ctx: CallContext, vaultId: string, walletId: string, body: UpdateWalletBody, externalId: string) {
      const { tenantId } = ctx;
      const { vault, wallet } = await beforeEffects(async () => {
        const found = await walletOf(ctx, vaultId, walletId);
        if (body.accountSet && found.wallet.chain !== 'xrpl') throw CustodyErrors.accountSetNotXrpl();
        return found;
      });
      const providerVaultId = String(wallet.details.providerVaultId ?? '');
      const client = await provider.client(tenantId);
      const description = body.description ?? null;
      await notFoundAs(client.updateWallet(providerVaultId, wallet.providerRef!, { name: body.name, description }), CustodyErrors.walletNotFound);
      let accountSet: TransactionDto | null = null;
      if (body.accountSet) {
        const seen = await notFoundAs(client.accountSet(providerVaultId, wallet.providerRef!, { setFlag: ASF_DEFAULT_RIPPLE, externalId }), CustodyErrors.walletNotFound);
        accountSet = transactionDto(await record(ctx, vault, wallet, seen));
      }
      const stored = await tx(async (db) => {
        const row = await wallets.updateDetails(tenantId, wallet.id, { name: body.name, description }, db);
        await audit.record(db, tenantId, {
          type: 'custody.wallet_updated', ...auditActor(ctx.actor), subjectUserId: wallet.userId,
          details: { vaultId: vault.id, walletId: wallet.id, name: body.name, accountSet: accountSet?.transactionId ?? null },
        });
        return row;
      });
      const details = stored.details as { name?: unknown; description?: unknown };
      return {
        wallet: wallets.toDto(stored),
        name: String(details.name),
        description: typeof details.description === 'string' ? details.description : null,
        accountSet,
      };
    },

    /**
     * The in-flight follower's step (a row not final whose lease passed): asks the provider and
     * moves the record forward, so it ends final without a webhook or a read.
     */
    async follow(row: CustodyTransactionRow): Promise<void> {
      const wallet = await wallets.findById(row.tenantId, row.walletId);
      if (!wallet?.providerRef) return;
      const client = await provider.client(row.tenantId);
      const seen = await client.getTransaction(String(wallet.details.providerVaultId ?? ''), wallet.providerRef, row.providerTransactionId);
      await tx((db) => apply(db, row.tenantId, row, seen, SYSTEM_ACTOR));
    },

    /**
     * A provider webhook's transaction (already verified), applied in the delivery's transaction
     * `db`; false when no such transaction is recorded (yet). `row` is the transaction read under
     * its lock in the webhook's claim (webhookRead): a webhook nearly always moves it.
     */
    async fromWebhook(tenantId: string, seen: CustodyTransaction, db: DbOrTx, row: CustodyTransactionRow | undefined): Promise<boolean> {
      if (row) await apply(db, tenantId, row, seen, { type: 'provider', id: CUSTODY_A }, true);
      return row !== undefined;
    },

    /** The read a transaction's webhook starts with, made in its claim's statement (Providers.once's `first`). */
    webhookRead: (tenantId: string, providerId: string) => repo.lockedTransactionRead(tenantId, providerId),
  };
}

export type TransactionsService = ReturnType<typeof createTransactionsService>;
