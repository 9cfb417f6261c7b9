import { auditActor } from '../../platform/audit/actor.js';
import type { RunInTx } from '../../platform/db/tx.js';
import type { CallContext } from '../../platform/http/context.js';
import type { AuditService } from '../audit/service.js';
import type { ApiKeyOptions, ApiKeyView, TenantsService } from './service.js';

/**
 * The tenant's API keys over the API (an admin, or a key holding `all`): each change commits
 * with its audit event.
 */
export function createApiKeysService(deps: { tenants: TenantsService; audit: AuditService; tx: RunInTx }) {
  const { tenants, audit, tx } = deps;
  return {
    list: (ctx: CallContext): Promise<ApiKeyView[]> => tenants.listApiKeys(ctx.tenantId),

    create: (ctx: CallContext, options: ApiKeyOptions) =>
      tx(async (db) => {
        const created = await tenants.issueApiKey(ctx.tenantId, options, db);
        await audit.record(db, ctx.tenantId, {
          type: 'api_key.created',
          ...auditActor(ctx.actor),
          details: { keyId: created.id, scopes: created.scopes, expiresAt: created.expiresAt },
        });
        return created;
      }),

    revoke: (ctx: CallContext, keyId: string) =>
      tx(async (db) => {
        await tenants.revokeApiKey(ctx.tenantId, keyId, db);
        await audit.record(db, ctx.tenantId, { type: 'api_key.revoked', ...auditActor(ctx.actor), details: { keyId } });
      }),

    rotate: (ctx: CallContext, keyId: string, options: { overlapSeconds: number; expiresAt?: Date }) =>
      tx(async (db) => {
        const rotated = await tenants.rotateApiKey(ctx.tenantId, keyId, options, db);
        await audit.record(db, ctx.tenantId, {
          type: 'api_key.rotated',
          ...auditActor(ctx.actor),
          details: { keyId, newKeyId: rotated.id, previousKeyExpiresAt: rotated.previousKeyExpiresAt },
        });
        return rotated;
      }),
  };
}

export type ApiKeysService = ReturnType<typeof createApiKeysService>;
