import type { BastionModule, Platform } from '../../platform/module/module.js';
import type { AuditService } from '../audit/service.js';
import type { UsersService } from '../users/service.js';
import { createEvmEoaService, type EvmEoaService } from './evm-eoas.js';
import { createWalletsRepo } from './repo.js';
import { evmEoaRoutes } from './routes.js';
import { createWalletsService, type WalletsService } from './service.js';

/** The registry's schema and errors the modules that register wallets in it answer (custody, xrpl). */
export { Wallet, WalletList, type WalletDto } from './schemas.js';
export { WalletErrors } from './errors.js';

export interface WalletsServices {
  /** The registry every wallet kind registers in (see service.ts for its interface). */
  wallets: WalletsService;
  eoas: EvmEoaService;
}

/** The wallet registry and the /evm-eoas routes (on the platform's EVM chain). */
export function createWalletsModule(
  platform: Platform,
  deps: { users: UsersService; audit: AuditService },
): BastionModule<WalletsServices> {
  const { config, db, tx, clock, secrets } = platform;
  const repo = createWalletsRepo(db, deps.users.userExistsSql);
  const wallets = createWalletsService({ repo, tx, clock, secrets, users: deps.users, audit: deps.audit, primaryEvmChainId: config.evm.chainId });
  const eoas = createEvmEoaService({
    repo,
    tx,
    clock,
    users: deps.users,
    wallets,
    chain: platform.chains.evm,
    chainId: config.evm.chainId,
    publicBaseUrl: platform.publicBaseUrl,
    limiter: platform.limiter,
  });

  return {
    name: 'wallets',
    services: { wallets, eoas },
    routes: { tenant: (scope) => evmEoaRoutes(scope, { eoas }) },
  };
}
