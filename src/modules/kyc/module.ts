import type { BastionModule, Platform } from '../../platform/module/module.js';
import type { AuditService } from '../audit/service.js';
import type { UsersService } from '../users/service.js';
import { kycCallbackRoutes } from './callback-routes.js';
import { createIdvBService, verifyRecordWallet } from './idv-b.js';
import { idvBRoutes } from './idv-b-routes.js';
import { createKycRepo } from './repo.js';
import { kycRoutes } from './routes.js';
import { createKycService } from './service.js';
import { createKycTransitions } from './transitions.js';
import { createKycWebhooks } from './webhooks.js';

/**
 * KYC through the identity-verification providers (idv-a, idv-b; reached through
 * `platform.providers`, kind `idv`), their signed webhooks and manual review. Each change
 * announces `identity.changed` in its transaction.
 */
export function createKycModule(platform: Platform, deps: { users: UsersService; audit: AuditService }) {
  const { db, tx, clock, hooks, publicBaseUrl, providers } = platform;
  const { users, audit } = deps;
  const repo = createKycRepo(db);
  const identityChanged = (tenantId: string, userId: string, txDb: Parameters<typeof hooks.emit>[2]) =>
    hooks.emit('identity.changed', { tenantId, userId }, txDb);
  const transitions = createKycTransitions({ repo, users, audit, clock, identityChanged });
  const kyc = createKycService({ repo, tx, clock, users, providers, transitions, audit, publicBaseUrl });
  const kycWebhooks = createKycWebhooks({ repo, providers, transitions, verifyWallet: verifyRecordWallet });
  const idvB = createIdvBService({ tx, clock, users, providers, transitions, publicBaseUrl });

  const services = { kyc, kycWebhooks, idvB };
  const module: BastionModule<typeof services> = {
    name: 'kyc',
    services,
    routes: {
      tenant: (scope) => {
        kycRoutes(scope, { kyc });
        idvBRoutes(scope, { idvB });
      },
      open: async (app) => {
        // Provider webhooks, as the idv providers' definitions declare them: authenticated by signature, with their raw-body parser.
        await app.register(kycCallbackRoutes, { webhooks: kycWebhooks, definitions: () => providers.definitions() });
      },
    },
  };
  return module;
}
