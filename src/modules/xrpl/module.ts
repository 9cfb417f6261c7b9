import type { BastionModule, Platform } from '../../platform/module/module.js';
import type { AuditService } from '../audit/service.js';
import type { UsersService } from '../users/service.js';
import type { WalletsService } from '../wallets/service.js';
import { createXrplChallenges } from './xrpl-challenges.js';
import { createXrplNonCustodial, type XrplNonCustodial } from './xrpl-noncustodial.js';
import { createXrplRepo } from './xrpl-repo.js';
import { xrplRoutes } from './xrpl-routes.js';
import { createXrplSecureAccounts, type XrplSecureAccounts } from './xrpl-secure-accounts.js';
import { createXrplSubmissions, type XrplSubmissions } from './xrpl-submissions.js';

export interface XrplModuleOptions {
  /** How long a request waits for its transaction to be final (default 30 s). */
  finalTimeoutMs?: number;
}

export interface XrplServices {
  xrplSecureAccounts: XrplSecureAccounts;
  xrplNonCustodial: XrplNonCustodial;
  /** Reliable submission of XRPL transactions (tracked until validated or expired). */
  xrplSubmissions: XrplSubmissions;
}

/**
 * XRPL wallets (secure accounts and non-custodial wallets, registered in the wallets registry)
 * and the reliable submission of their transactions, on the platform's XRPL ledger.
 */
export function createXrplModule(
  platform: Platform,
  deps: { users: UsersService; audit: AuditService; wallets: WalletsService },
  options: XrplModuleOptions = {},
): BastionModule<XrplServices> {
  const { config, db, tx, clock } = platform;
  const ledger = platform.chains.xrpl;
  const network = platform.chains.xrplNetwork;
  const xrplRepo = createXrplRepo(db);
  const challenges = createXrplChallenges({ repo: xrplRepo, clock, limiter: platform.limiter, publicBaseUrl: platform.publicBaseUrl });
  const xrplSubmissions = createXrplSubmissions({ db, repo: xrplRepo, tx, clock, ledger, audit: deps.audit, finalTimeoutMs: options.finalTimeoutMs ?? 30_000 });
  // Submissions in flight that no request follows (any more), including those a previous run
  // left, are claimed by the platform's in-flight sweeper and followed until final.
  platform.inFlight.register(xrplSubmissions.flow);
  const xrplSecureAccounts = createXrplSecureAccounts({ tx, users: deps.users, wallets: deps.wallets, ledger, network, challenges });
  const xrplNonCustodial = createXrplNonCustodial({
    tx,
    users: deps.users,
    wallets: deps.wallets,
    repo: xrplRepo,
    ledger,
    network,
    challenges,
    submissions: xrplSubmissions,
    testSigning: config.xrplTestSigning,
  });

  return {
    name: 'xrpl',
    services: { xrplSecureAccounts, xrplNonCustodial, xrplSubmissions },
    routes: { tenant: (scope) => xrplRoutes(scope, { secure: xrplSecureAccounts, noncustodial: xrplNonCustodial }) },
  };
}
