import type { BastionModule, Platform } from '../../platform/module/module.js';
import type { AuditService } from '../audit/service.js';
import type { UsersService } from '../users/service.js';
import { createEntityAccess, type EntityAccessService } from './access.js';
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
}

/**
 * Legal entities: members with permissions read from the database on every route, manual
 * payment methods with sealed account numbers, and the business profile at business-profile-a.
 */
export function createEntitiesModule(
  platform: Platform,
  deps: { users: UsersService; audit: AuditService },
): BastionModule<EntitiesServices> {
  const { db, tx, clock, secrets, logger } = platform;
  const { users, audit } = deps;
  const repo = createEntitiesRepo(db);
  const access = createEntityAccess({ repo, users });
  const bpRepo = createBusinessProfilesRepo(db);
  const services: EntitiesServices = {
    access,
    entities: createEntitiesService({ repo, access, tx, clock, users, audit }),
    members: createMembersService({ repo, access, tx, clock, users, audit }),
    paymentMethods: createPaymentMethodsService({ repo: createPaymentMethodsRepo(db), access, tx, clock, secrets, audit }),
    businessProfiles: createBusinessProfilesService({
      repo: bpRepo,
      access,
      providers: platform.providers,
      tx,
      clock,
      secrets,
      audit,
      logger,
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
      },
    },
  };
}
