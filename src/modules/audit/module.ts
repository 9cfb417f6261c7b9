import type { BastionModule, Platform } from '../../platform/module/module.js';
import { createAuditRepo } from './repo.js';
import { auditRoutes } from './routes.js';
import { createAuditService, type AuditService } from './service.js';

/** The append-only audit log of security and administrative events. */
export function createAuditModule(platform: Platform): BastionModule<{ audit: AuditService }> {
  const audit = createAuditService({ repo: createAuditRepo(platform.db), clock: platform.clock });
  return { name: 'audit', services: { audit }, routes: { tenant: (scope) => auditRoutes(scope, { audit }) } };
}
