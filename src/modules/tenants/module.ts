import type { BastionModule, Platform } from '../../platform/module/module.js';
import { createTenantsRepo } from './repo.js';
import { createTenantsService, type TenantsService } from './service.js';

/** Tenants and their API keys: no routes (the operator CLI creates them). */
export function createTenantsModule(platform: Platform): BastionModule<{ tenants: TenantsService }> {
  const tenants = createTenantsService({ repo: createTenantsRepo(platform.db), clock: platform.clock });
  return { name: 'tenants', services: { tenants } };
}
