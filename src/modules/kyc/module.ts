import type { BastionModule, Platform } from '../../platform/module/module.js';
import { createIdvAdapters } from '../../providers/idv/adapters.js';
import type { IdvPort } from '../../providers/idv/port.js';
import { idvSandbox } from '../../sandboxes/idv/plugin.js';
import type { AuditService } from '../audit/service.js';
import type { UsersService } from '../users/service.js';
import { kycCallbackRoutes } from './callback-routes.js';
import { createIdvBService, verifyRecordWallet } from './idv-b.js';
import { idvBRoutes } from './idv-b-routes.js';
import { createIdvConfigService } from './idv-config.js';
import { createKycRepo } from './repo.js';
import { kycRoutes } from './routes.js';
import { createKycService } from './service.js';
import { createKycTransitions } from './transitions.js';
import { createKycWebhooks } from './webhooks.js';

/**
 * KYC through the identity-verification providers (idv-a, idv-b), their signed webhooks, manual
 * review, and the built-in sandbox. Each change announces `identity.changed` in its transaction.
 */
export function createKycModule(platform: Platform, deps: { users: UsersService; audit: AuditService }, options: { idv?: IdvPort } = {}) {
  const { db, tx, clock, config, hooks, publicBaseUrl } = platform;
  const { users, audit } = deps;
  const repo = createKycRepo(db);
  const idv = options.idv ?? createIdvAdapters();
  const identityChanged = (tenantId: string, userId: string, txDb: Parameters<typeof hooks.emit>[2]) =>
    hooks.emit('identity.changed', { tenantId, userId }, txDb);
  const idvConfig = createIdvConfigService({ providerSettings: platform.providerSettings, publicBaseUrl, sandboxEnabled: config.idvSandbox });
  const transitions = createKycTransitions({ repo, users, audit, clock, identityChanged });
  const kyc = createKycService({ repo, tx, clock, users, idv, idvConfig, transitions, audit, publicBaseUrl });
  const kycWebhooks = createKycWebhooks({ repo, tx, clock, idvConfig, transitions, verifyWallet: verifyRecordWallet });
  const idvB = createIdvBService({ tx, clock, users, idv, idvConfig, transitions, publicBaseUrl });

  const services = { kyc, kycWebhooks, idvB, idvConfig };
  const module: BastionModule<typeof services> = {
    name: 'kyc',
    services,
    routes: {
      tenant: (scope) => {
        kycRoutes(scope, { kyc });
        idvBRoutes(scope, { idvB });
      },
      open: async (app) => {
        // Provider webhooks: authenticated by signature, with their raw-body parser.
        await app.register(kycCallbackRoutes, { webhooks: kycWebhooks, idv });
        // The built-in sandbox (the default provider); IDV_SANDBOX=off removes it.
        if (config.idvSandbox) {
          await app.register(idvSandbox, {
            lookupSecret: (provider, clientId) => idvConfig.sandboxSecret(provider, clientId),
            publicBaseUrl,
            clock,
          });
        }
      },
    },
  };
  return module;
}
