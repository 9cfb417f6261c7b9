import type { FastifyInstance } from 'fastify';
import type { UserContext } from '../../platform/http/context.js';
import type { BastionModule, Platform } from '../../platform/module/module.js';
import type { AuditService } from '../audit/service.js';
import type { UsersService } from '../users/service.js';
import type { WalletsService } from '../wallets/service.js';
import { createCustodyBRepo } from './repo.js';
import { custodyBRoutes } from './routes.js';
import { createCustodyBService, type CustodyBService } from './service.js';

/** The custody-b sandbox's faucet routes (src/sandboxes/custody-b), handed over while sandboxes are on. */
export interface CustodyBFaucet {
  faucetRoutes(scope: FastifyInstance, deps: { walletOf: (ctx: UserContext, address: string) => Promise<{ providerRef: string }> }): void;
}

export interface CustodyBServices {
  custodyB: CustodyBService;
}

/**
 * Delegated custody through the custody-b provider (Dfns's protocol): the user registers a
 * credential with the provider, and every wallet creation and signature is a user action the
 * user's credential signs. custody-b itself (and its sandbox, every tenant's provider until
 * configured) is declared in src/providers/custody-b/custody-b/ and reached through
 * `platform.providers`; while sandboxes are on the container also hands the sandbox's faucet,
 * mounted in the tenant scope.
 */
export function createCustodyBModule(
  platform: Platform,
  deps: { users: UsersService; audit: AuditService; wallets: WalletsService; faucet?: CustodyBFaucet },
): BastionModule<CustodyBServices> {
  const { db, clock, secrets } = platform;
  const custodyB = createCustodyBService({
    repo: createCustodyBRepo(db),
    tx: platform.tx,
    clock,
    secrets,
    providers: platform.providers,
    users: deps.users,
    wallets: deps.wallets,
    audit: deps.audit,
  });

  return {
    name: 'custody-b',
    services: { custodyB },
    routes: {
      tenant: (scope) => {
        custodyBRoutes(scope, { service: custodyB });
        deps.faucet?.faucetRoutes(scope, { walletOf: (ctx, address) => custodyB.walletOf(ctx, address) });
      },
    },
  };
}
