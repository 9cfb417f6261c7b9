import type { BastionModule, Platform } from '../../platform/module/module.js';
import type { AuditService } from '../audit/service.js';
import { createOriginatorsService, type OriginatorsService } from './originators.js';
import { createBankLinkProvider } from './provider.js';
import { createBankLinkRepo } from './repo.js';
import { bankLinkRoutes } from './routes.js';
import { bankLinkSandboxRoutes } from './sandbox-routes.js';
import { createBankLinkService, type BankLinkService } from './service.js';
import { bankLinkWebhookRoutes } from './webhook-routes.js';
import { createBankLinkWebhooks, type BankLinkWebhooks } from './webhooks.js';

export interface BankLinkServices {
  service: BankLinkService;
  originators: OriginatorsService;
  webhooks: BankLinkWebhooks;
}

/**
 * Bank-account linking through the bank-link provider (Plaid's protocol; declared in
 * src/providers/bank-link/plaid/, reached through platform.providers): the user and tenant
 * routes, the sandbox originator routes and the provider's signed webhooks.
 */
export function createBankLinkModule(platform: Platform, deps: { audit: AuditService }): BastionModule<BankLinkServices> {
  const { db, tx, clock, secrets } = platform;
  const repo = createBankLinkRepo(db);
  const provider = createBankLinkProvider(platform.providers, platform.providerSettings);
  const service = createBankLinkService({ repo, tx, clock, secrets, provider, audit: deps.audit });
  const originators = createOriginatorsService({ repo, clock, provider, audit: deps.audit });
  const webhooks = createBankLinkWebhooks({ repo, clock, providers: platform.providers, provider });

  return {
    name: 'bank-link',
    services: { service, originators, webhooks },
    routes: {
      tenant: (scope) => {
        bankLinkRoutes(scope, { service });
        bankLinkSandboxRoutes(scope, { originators });
      },
      open: async (app) => {
        await app.register(bankLinkWebhookRoutes, { webhooks });
      },
    },
  };
}
