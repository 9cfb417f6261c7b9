import type { BastionModule, Platform } from '../../platform/module/module.js';
import type { IdentitySource } from './service.js';
import type { UsersService } from '../users/service.js';
import { createIdentityRepo } from './repo.js';
import { identityRoutes } from './routes.js';
import { createIdentityService, type IdentityService } from './service.js';
import { userIdentitySource } from './sources.js';

/**
 * The identity Merkle root of each user, over the fields its sources give. It recomputes in
 * the transaction of every `identity.changed` a module announces.
 */
export function createIdentityModule(
  platform: Platform,
  deps: { users: UsersService; sources: IdentitySource[] },
): BastionModule<{ identity: IdentityService }> {
  const { db, tx, clock, hooks } = platform;
  const { users } = deps;
  const sources = [userIdentitySource(users), ...deps.sources];
  const identity = createIdentityService({
    db,
    repo: createIdentityRepo(db, sources.map((source) => source.read)),
    tx,
    clock,
    sources,
    userExists: async (tenantId, userId) => Boolean(await users.findRow(tenantId, userId)),
  });
  hooks.on('identity.changed', async ({ tenantId, userId }, txDb) => {
    await identity.recompute(tenantId, userId, txDb);
  });
  return { name: 'identity', services: { identity }, routes: { tenant: (scope) => identityRoutes(scope, { identity }) } };
}
