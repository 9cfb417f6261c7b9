import type { BastionModule, Platform } from '../../platform/module/module.js';
import { createUsersRepo } from './repo.js';
import { usersRoutes } from './routes.js';
import { createUsersService, type UsersService } from './service.js';

export function createUsersModule(platform: Platform): BastionModule<{ users: UsersService }> {
  const users = createUsersService({ repo: createUsersRepo(platform.db), tx: platform.tx, clock: platform.clock });
  return { name: 'users', services: { users }, routes: { tenant: (scope) => usersRoutes(scope, { users }) } };
}
