import type { BastionModule, Platform } from '../../platform/module/module.js';
import type { FastifyInstance } from 'fastify';
import type { AuditService } from '../audit/service.js';
import type { UsersService } from '../users/service.js';
import type { WalletsService } from '../wallets/service.js';
import { createCustodyAProvider, CUSTODY_A, CUSTODY_KIND, type CustodyAProvider } from './provider.js';
import { CustodyErrors } from './errors.js';
import type { Viewer } from '../../platform/http/access.js';
import { createCustodyRepo } from './repo.js';
import { custodyTransactions, custodyTransfers } from './table.js';
import { notInArray } from 'drizzle-orm';
import { inFlightFlow } from '../../platform/module/in-flight.js';
import { FINAL_TRANSACTION_STATUSES, FINAL_TRANSFER_STATUSES } from '../../providers/custody/port.js';
import { custodyRoutes, custodyWebhookRoutes } from './routes.js';
import { createTransactionsService, type TransactionsService } from './transactions.js';
import { createTransfersService, type TransfersService } from './transfers.js';
import { createVaultsService, type VaultsService } from './vaults.js';
import { createCustodyWebhooks } from './webhooks.js';

/** The custody-a sandbox's faucet routes (src/sandboxes/custody-a), handed over while sandboxes are on. */
export interface CustodyAFaucet {
  faucetRoutes(scope: FastifyInstance, deps: { onSandbox: (tenantId: string) => Promise<boolean>; walletOf: (tenantId: string, viewer: Viewer, vaultId: string, chain: 'evm' | 'xrpl') => Promise<{ providerWalletId: string; vaultId: string }> }): void;
}

export interface CustodyServices {
  vaults: VaultsService;
  transactions: TransactionsService;
  transfers: TransfersService;
  custodyA: CustodyAProvider;
}

/**
 * Custodial EVM vaults (/evm-vaults) and the custody-a routes, the non-custodial EVM transfer
 * (/non-custodial-evm/transfers) and custody-a's signed webhooks. custody-a itself (and its
 * sandbox) is declared in src/providers/custody/custody-a/ and reached through
 * `platform.providers` (src/container.ts hands the definition over); while sandboxes are on the
 * container also hands the sandbox's faucet, mounted in the tenant scope.
 */
export function createCustodyModule(
  platform: Platform,
  deps: { users: UsersService; audit: AuditService; wallets: WalletsService; findTenant: (id: string) => Promise<unknown>; faucet?: CustodyAFaucet },
): BastionModule<CustodyServices> {
  const { db, tx, clock, secrets, config } = platform;
  const { wallets } = deps;
  const repo = createCustodyRepo(db);
  const custodyA = createCustodyAProvider(platform.providers);
  const vaults = createVaultsService({ repo, tx, clock, wallets, users: deps.users, audit: deps.audit, provider: custodyA });
  const transactions = createTransactionsService({ repo, tx, clock, wallets, vaults, audit: deps.audit, provider: custodyA });
  const transfers = createTransfersService({ repo, tx, clock, secrets, wallets, audit: deps.audit, provider: custodyA });
  // Bastion's own records follow the provider until final (webhooks can be lost; a crash can
  // come between the provider's change and its webhook): one look per row every lease (5 s).
  platform.inFlight.register(
    inFlightFlow(
      db,
      { name: 'custody-a transaction record', table: custodyTransactions, id: custodyTransactions.id, leaseUntil: custodyTransactions.leaseUntil, attempts: custodyTransactions.attempts, inFlight: notInArray(custodyTransactions.status, [...FINAL_TRANSACTION_STATUSES]), order: custodyTransactions.updatedAt },
      (row) => transactions.follow(row),
    ),
  );
  platform.inFlight.register(
    inFlightFlow(
      db,
      { name: 'custody-a transfer record', table: custodyTransfers, id: custodyTransfers.id, leaseUntil: custodyTransfers.leaseUntil, attempts: custodyTransfers.attempts, inFlight: notInArray(custodyTransfers.status, [...FINAL_TRANSFER_STATUSES]), order: custodyTransfers.updatedAt },
      (row) => transfers.follow(row),
    ),
  );
  /** Whether the tenant is left on custody-a's built-in sandbox (no base URL of its own): the faucet pays only then. */
  const onSandbox = async (tenantId: string) => (await platform.providerSettings.get(tenantId, CUSTODY_KIND, CUSTODY_A)).baseUrl === null;
  /** The sandbox faucet's wallet: the vault's wallet of that chain as the caller may see it. */
  async function sandboxWalletOf(tenantId: string, viewer: Viewer, vaultId: string, chain: 'evm' | 'xrpl') {
    const vault = await repo.findVault(tenantId, vaultId);
    if (!vault || (!viewer.privileged && vault.userId !== viewer.userId)) throw CustodyErrors.vaultNotFound();
    const rows = await Promise.all(vault.walletIds.map((id) => wallets.findById(tenantId, id)));
    const wallet = rows.find((w) => w?.chain === chain && w.providerRef);
    if (!wallet?.providerRef) throw CustodyErrors.walletNotFound();
    return { providerWalletId: wallet.providerRef, vaultId: vault.id };
  }
  const webhooks = createCustodyWebhooks({ providers: platform.providers, findTenant: deps.findTenant, transactions, transfers });

  return {
    name: 'custody',
    services: { vaults, transactions, transfers, custodyA },
    routes: {
      tenant: (scope) => {
        custodyRoutes(scope, { vaults, transactions, transfers, evmChainId: config.evm.chainId });
        deps.faucet?.faucetRoutes(scope, { onSandbox, walletOf: sandboxWalletOf });
      },
      open: async (app) => {
        await app.register(custodyWebhookRoutes, { webhooks });
      },
    },
  };
}
