import { auditActor } from '../../platform/audit/actor.js';
import type { Actor } from '../../platform/audit/actor.js';
import type { CallContext } from '../../platform/http/context.js';
import type { DbOrTx } from '../../platform/db/client.js';
import type { UsersService } from '../users/service.js';
import { EntityErrors } from './errors.js';
import { holds, PERMISSIONS, sortPermissions, type Permission } from './permissions.js';
import type { EntitiesRepo } from './repo.js';
import type { EntityRow } from './table.js';

/**
 * Who calls: the platform's call context (src/platform/http/context.ts). Entity access reads
 * only its identities (`caller.kind`, `userId`); roles and permissions come from the database,
 * never from the token (`ctx.privileged` is not used here).
 */
export type Caller = CallContext;

export interface EntityAccess {
  entity: EntityRow;
  /** The caller's effective permissions (every one for the tenant's service and admins). */
  permissions: Permission[];
  privileged: boolean;
  /** The calling user's id, when the caller is a user. */
  userId?: string;
}

export { auditActor };

export function actorOfCaller(caller: Caller): Actor {
  return caller.actor;
}

/**
 * Entity authorization, read from the database on every call: an API key of the tenant and a
 * user whose stored role is admin act for the tenant (every permission on every entity); any
 * other user needs a membership (else 404) holding the permission (else 403).
 */
export function createEntityAccess(deps: { repo: EntitiesRepo; users: UsersService }) {
  const { repo, users } = deps;

  async function isPrivileged(tenantId: string, caller: Caller, db?: DbOrTx): Promise<boolean> {
    if (caller.caller.kind === 'apiKey' || caller.userId === undefined) return caller.caller.kind === 'apiKey';
    const user = await users.findRow(tenantId, caller.userId, db);
    return user?.role === 'admin';
  }

  return {
    isPrivileged,

    /**
     * The entity when the caller may do what `needed` allows; `needed` null = any member.
     * With `lock` (inside a transaction) the entity row is locked first, serializing changes.
     */
    async require(tenantId: string, entityId: string, caller: Caller, needed: Permission | null, db?: DbOrTx, lock = false): Promise<EntityAccess> {
      const entity = await repo.findEntity(tenantId, entityId, db, lock);
      if (!entity) throw EntityErrors.notFound();
      if (await isPrivileged(tenantId, caller, db)) return { entity, permissions: [...PERMISSIONS], privileged: true, userId: caller.userId };
      const userId = caller.userId!;
      const member = await repo.findMember(tenantId, entityId, userId, db);
      // Outside the entity: it does not exist for this caller.
      if (!member) throw EntityErrors.notFound();
      if (needed && !holds(member.permissions, needed)) throw EntityErrors.forbidden(needed);
      return { entity, permissions: effective(member.permissions), privileged: false, userId };
    },
  };
}

/** What a member may do: the granted set, with what `owner` and the manage_* permissions imply. */
export function effective(granted: readonly Permission[]): Permission[] {
  return sortPermissions(PERMISSIONS.filter((p) => holds(granted, p)));
}

export type EntityAccessService = ReturnType<typeof createEntityAccess>;
