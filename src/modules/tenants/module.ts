import type { BastionModule, Platform } from '../../platform/module/module.js';
import type { AuditService } from '../audit/service.js';
import { createApiKeysService } from './api-keys.js';
import { createTenantsRepo } from './repo.js';
import { apiKeyRoutes } from './routes.js';
import { createTenantsService, type TenantsService } from './service.js';

/** Tenants and their API keys: the operator CLI creates tenants; keys are also managed over the API. */
export function createTenantsModule(platform: Platform, deps: { audit: AuditService }): BastionModule<{ tenants: TenantsService }> {
  const tenants = createTenantsService({ repo: createTenantsRepo(platform.db), clock: platform.clock });
  const apiKeys = createApiKeysService({ tenants, audit: deps.audit, tx: platform.tx });
  return { name: 'tenants', services: { tenants }, routes: { tenant: (scope) => apiKeyRoutes(scope, { apiKeys }) } };
}
