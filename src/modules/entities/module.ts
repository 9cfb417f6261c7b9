import type { BastionModule, Platform } from '../../platform/module/module.js';
import { createBusinessProfileAHttpAdapter } from '../../providers/business-profile/business-profile-a/http.js';
import { businessProfileASandboxRoutes } from '../../sandboxes/business-profile-a/plugin.js';
import { createBusinessProfileASandbox, type BusinessProfileASandbox } from '../../sandboxes/business-profile-a/service.js';
import type { BusinessProfilePort } from '../../providers/business-profile/port.js';
import type { AuditService } from '../audit/service.js';
import type { UsersService } from '../users/service.js';
import { createEntityAccess, type EntityAccessService } from './access.js';
import { createBusinessProfileConfig, type BusinessProfileConfig } from './bp-config.js';
import { createBusinessProfilesRepo } from './bp-repo.js';
import { businessProfileRoutes, businessProfileWebhookRoutes } from './bp-routes.js';
import { createBusinessProfilesService, type BusinessProfilesService } from './bp-service.js';
import { createMembersService, type MembersService } from './members.js';
import { createPaymentMethodsRepo } from './payment-repo.js';
import { paymentMethodRoutes } from './payment-routes.js';
import { createPaymentMethodsService, type PaymentMethodsService } from './payment-service.js';
import { createEntitiesRepo } from './repo.js';
import { entitiesRoutes } from './routes.js';
import { createEntitiesService, type EntitiesService } from './service.js';

export interface EntitiesServices {
  access: EntityAccessService;
  entities: EntitiesService;
  members: MembersService;
  paymentMethods: PaymentMethodsService;
  businessProfiles: BusinessProfilesService;
  businessProfileConfig: BusinessProfileConfig;
  /** The built-in business-profile-a stand-in (its routes live under /sandbox/business-profile-a). */
  businessProfileSandbox: BusinessProfileASandbox;
}

/**
 * Legal entities: members with permissions read from the database on every route, manual
 * payment methods with sealed account numbers, and the business profile at business-profile-a.
 */
export function createEntitiesModule(
  platform: Platform,
  deps: { users: UsersService; audit: AuditService; businessProfileProvider?: BusinessProfilePort },
): BastionModule<EntitiesServices> {
  const { db, tx, clock, secrets, logger } = platform;
  const { users, audit } = deps;
  const repo = createEntitiesRepo(db);
  const access = createEntityAccess({ repo, users });
  const bpRepo = createBusinessProfilesRepo(db);
  const businessProfileConfig = createBusinessProfileConfig({
    providerSettings: platform.providerSettings,
    publicBaseUrl: () => platform.publicBaseUrl(),
    sandboxes: platform.config.sandboxes,
  });
  const services: EntitiesServices = {
    access,
    entities: createEntitiesService({ repo, access, tx, clock, users, audit }),
    members: createMembersService({ repo, access, tx, clock, users, audit }),
    paymentMethods: createPaymentMethodsService({ repo: createPaymentMethodsRepo(db), access, tx, clock, secrets, audit }),
    businessProfiles: createBusinessProfilesService({
      repo: bpRepo,
      access,
      config: businessProfileConfig,
      provider: deps.businessProfileProvider ?? createBusinessProfileAHttpAdapter(),
      tx,
      clock,
      secrets,
      audit,
      logger,
    }),
    businessProfileConfig,
    businessProfileSandbox: createBusinessProfileASandbox({
      db,
      clock,
      lookupAccount: (apiKey) => businessProfileConfig.sandboxAccountByKey(apiKey),
      accountById: (accountId) => businessProfileConfig.sandboxAccountById(accountId),
    }),
  };

  return {
    name: 'entities',
    services,
    routes: {
      tenant(scope) {
        entitiesRoutes(scope, services);
        paymentMethodRoutes(scope, services);
        businessProfileRoutes(scope, services);
      },
      async open(app) {
        await app.register(async (scope) => businessProfileWebhookRoutes(scope, services));
        // The built-in provider is served only where sandboxes are (never in production by default).
        if (platform.config.sandboxes) await app.register(async (scope) => businessProfileASandboxRoutes(scope, services.businessProfileSandbox));
      },
    },
  };
}
