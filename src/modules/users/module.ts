import type { BastionModule, Platform } from '../../platform/module/module.js';
import { createUsersRepo } from './repo.js';
import { usersRoutes } from './routes.js';
import { createUsersService, type UsersService } from './service.js';

/** The users module's schemas other modules answer or take (auth's register and token routes). */
export { Email, FullName, User, UserIdParam } from './schemas.js';

export function createUsersModule(platform: Platform): BastionModule<{ users: UsersService }> {
  const users = createUsersService({
    db: platform.db,
    repo: createUsersRepo(platform.db),
    tx: platform.tx,
    clock: platform.clock,
    identityChanged: (tenantId, userId, db) => platform.hooks.emit('identity.changed', { tenantId, userId }, db),
  });
  return { name: 'users', services: { users }, routes: { tenant: (scope) => usersRoutes(scope, { users }) } };
}
