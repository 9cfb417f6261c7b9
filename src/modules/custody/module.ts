import type { BastionModule, Platform } from '../../platform/module/module.js';
import { createCustodyASandbox, type CustodyASandbox } from '../../providers/custody/custody-a/sandbox/plugin.js';
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
  /** The built-in custody-a provider. */
  custodyASandbox: CustodyASandbox;
}

/**
 * Custodial EVM vaults (/evm-vaults) and the custody-a routes, the non-custodial EVM transfer
 * (/non-custodial-evm/transfers), custody-a's signed webhooks, and the custody-a sandbox
 * (served with SANDBOXES), which executes on the wallets module's EVM chain and XRPL ledger.
 */
export function createCustodyModule(
  platform: Platform,
  deps: { users: UsersService; audit: AuditService; wallets: WalletsServices; findTenant: (id: string) => Promise<unknown>; fetch?: typeof fetch },
): BastionModule<CustodyServices> {
  const { db, tx, clock, secrets, logger, background, config } = platform;
  const { wallets, evmChain, xrplLedger, xrplNetwork } = deps.wallets;
  const repo = createCustodyRepo(db);
  const custodyASandbox = createCustodyASandbox({
    db, secrets, clock, logger, background, inFlight: platform.inFlight, publicBaseUrl: () => platform.publicBaseUrl(),
    chains: { evmChain, xrplLedger, xrplNetwork },
    ...(deps.fetch ? { fetch: deps.fetch } : {}),
  });
  const custodyA = createCustodyAProvider(platform, custodyASandbox, deps.fetch);
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
  const webhooks = createCustodyWebhooks({ clock, provider: custodyA, findTenant: deps.findTenant, transactions, transfers });

  return {
    name: 'custody',
    services: { vaults, transactions, transfers, custodyA, custodyASandbox },
    routes: {
      tenant: (scope) => custodyRoutes(scope, { vaults, transactions, transfers, evmChainId: config.evm.chainId }),
      open: async (app) => {
        await app.register(custodyWebhookRoutes, { webhooks });
        if (config.sandboxes) await custodyASandbox.routes(app);
      },
    },
  };
}
