import type { BastionModule, Platform } from '../../platform/module/module.js';
import { createIdempotencyStore } from '../../platform/idempotency/store.js';
import type { AuditService } from '../audit/service.js';
import type { UsersService } from '../users/service.js';
import type { WalletsServices } from '../wallets/module.js';
import { createCustodyAProvider, type CustodyAProvider } from './provider.js';
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
 * `platform.providers` (src/container.ts hands the definition over).
 */
export function createCustodyModule(
  platform: Platform,
  deps: { users: UsersService; audit: AuditService; wallets: WalletsServices; findTenant: (id: string) => Promise<unknown> },
): BastionModule<CustodyServices> {
  const { db, tx, clock, secrets, logger, background, config } = platform;
  const { wallets } = deps.wallets;
  const repo = createCustodyRepo(db);
  const custodyA = createCustodyAProvider(platform.providers);
  const store = createIdempotencyStore({ db, clock, logger, background });
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
  const webhooks = createCustodyWebhooks({ providers: platform.providers, findTenant: deps.findTenant, transactions, transfers });

  return {
    name: 'custody',
    services: { vaults, transactions, transfers, custodyA },
    routes: {
      tenant: (scope) => custodyRoutes(scope, { vaults, transactions, transfers, store, evmChainId: config.evm.chainId }),
      open: async (app) => {
        await app.register(custodyWebhookRoutes, { webhooks });
      },
    },
  };
}
