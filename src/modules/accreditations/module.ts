import type { BastionModule, Platform } from '../../platform/module/module.js';
import type { AuditService } from '../audit/service.js';
import type { UsersService } from '../users/service.js';
import { createAccreditationsRepo } from './repo.js';
import { accreditationsRoutes } from './routes.js';
import { createAccreditationsService, type AccreditationsService } from './service.js';

export function createAccreditationsModule(
  platform: Platform,
  deps: { users: UsersService; audit: AuditService; documentsOwned: (tenantId: string, userId: string, ids: string[]) => Promise<boolean> },
): BastionModule<{ accreditations: AccreditationsService }> {
  const { db, tx, clock, hooks } = platform;
  const accreditations = createAccreditationsService({
    repo: createAccreditationsRepo(db),
    tx,
    clock,
    users: deps.users,
    audit: deps.audit,
    documentsOwned: deps.documentsOwned,
    identityChanged: (tenantId, userId, txDb) => hooks.emit('identity.changed', { tenantId, userId }, txDb),
  });
  return { name: 'accreditations', services: { accreditations }, routes: { tenant: (scope) => accreditationsRoutes(scope, { accreditations }) } };
}
