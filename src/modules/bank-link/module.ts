import type { BastionModule, Platform } from '../../platform/module/module.js';
import type { BankLinkPort } from '../../providers/bank-link/port.js';
import { createPlaidAdapter } from '../../providers/bank-link/plaid/http.js';
import { createBankLinkSandbox, type BankLinkSandbox } from '../../sandboxes/plaid/plugin.js';
import type { AuditService } from '../audit/service.js';
import { createOriginatorsService, type OriginatorsService } from './originators.js';
import { createBankLinkRepo } from './repo.js';
import { bankLinkRoutes } from './routes.js';
import { bankLinkSandboxRoutes } from './sandbox-routes.js';
import { createBankLinkService, type BankLinkService } from './service.js';
import { createBankLinkSettings, type BankLinkSettingsService } from './settings.js';
import { bankLinkWebhookRoutes } from './webhook-routes.js';
import { createBankLinkWebhooks, type BankLinkWebhooks } from './webhooks.js';

export interface BankLinkServices {
  service: BankLinkService;
  originators: OriginatorsService;
  settings: BankLinkSettingsService;
  webhooks: BankLinkWebhooks;
  /** The built-in provider (its signer serves tests that forge webhooks). */
  sandbox: BankLinkSandbox;
}

/**
 * Bank-account linking through the bank-link provider (Plaid's protocol): the user and tenant
 * routes, the sandbox originator routes, the provider's signed webhooks, and the built-in
 * sandbox provider every tenant uses until configured otherwise.
 */
export function createBankLinkModule(platform: Platform, deps: { audit: AuditService; port?: BankLinkPort }): BastionModule<BankLinkServices> {
  const { db, tx, clock, secrets, logger, background } = platform;
  const repo = createBankLinkRepo(db);
  const port = deps.port ?? createPlaidAdapter();
  const sandbox = createBankLinkSandbox({ db, tx, secrets, clock, logger, background, publicBaseUrl: () => platform.publicBaseUrl() });
  const webhookUrl = (tenantId: string) => `${platform.publicBaseUrl()}/bank-link/webhooks/${tenantId}`;
  const settings = createBankLinkSettings({
    repo,
    providerSettings: platform.providerSettings,
    clock,
    sandboxBaseUrl: sandbox.baseUrl,
    sandboxes: platform.config.sandboxes,
    webhookUrl,
    provisionSandbox: (client) => sandbox.provisionClient(client),
  });
  const service = createBankLinkService({ repo, tx, clock, secrets, port, settings, audit: deps.audit, webhookUrl });
  const originators = createOriginatorsService({ repo, clock, port, settings, audit: deps.audit });
  const webhooks = createBankLinkWebhooks({ repo, tx, clock, port, settings });

  return {
    name: 'bank-link',
    services: { service, originators, settings, webhooks, sandbox },
    routes: {
      tenant: (scope) => {
        bankLinkRoutes(scope, { service });
        bankLinkSandboxRoutes(scope, { originators });
      },
      open: async (app) => {
        await app.register(bankLinkWebhookRoutes, { webhooks });
        // The built-in provider is served only where sandboxes are (never in production by default).
        if (platform.config.sandboxes) await sandbox.routes(app);
      },
    },
  };
}
