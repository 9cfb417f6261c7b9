import type { Clock } from '../../platform/clock.js';
import type { Tx } from '../../platform/db/client.js';
import type { RunInTx } from '../../platform/db/tx.js';
import { appendEvent, type EventType } from '../../platform/events/outbox.js';
import type { AuditType } from '../../platform/audit/types.js';
import type { CallContext } from '../../platform/http/context.js';
import type { AuditService } from '../audit/service.js';
import type { UsersService } from '../users/service.js';
import { auditActor, type EntityAccess, type EntityAccessService } from './access.js';
import { EntityErrors } from './errors.js';
import { holds, sortPermissions, type Permission } from './permissions.js';
import type { EntitiesRepo, MemberWithPermissions } from './repo.js';
import type { AddMemberInput, EntityMemberDto } from './schemas.js';

/**
 * Members of an entity and their permissions. Every change locks the entity row first, so
 * changes of one entity run one after another (the last-owner rule holds under concurrency),
 * and is audited and written to the outbox in its transaction.
 */
export function createMembersService(deps: {
  repo: EntitiesRepo;
  access: EntityAccessService;
  tx: RunInTx;
  clock: Clock;
  users: UsersService;
  audit: AuditService;
}) {
  const { repo, access, tx, clock, users, audit } = deps;

  async function toDto(tenantId: string, member: MemberWithPermissions, db?: Tx): Promise<EntityMemberDto> {
    const user = await users.findRow(tenantId, member.userId, db);
    return {
      userId: member.userId,
      email: user?.email ?? '',
      fullName: user?.fullName ?? null,
      permissions: sortPermissions(member.permissions),
      addedAt: member.createdAt.toISOString(),
    };
  }

  /** Granting or taking `owner`, or acting on an owner, takes an owner (or the tenant). */
  function requireOwnerFor(granter: EntityAccess, permission: Permission | 'owner-target'): void {
    if ((permission === 'owner' || permission === 'owner-target') && !holds(granter.permissions, 'owner')) throw EntityErrors.forbidden('owner');
  }

  async function change(
    db: Tx,
    ctx: CallContext,
    type: EventType & AuditType,
    entityId: string,
    targetUserId: string,
    details: Record<string, unknown>,
  ): Promise<void> {
    const { tenantId, actor } = ctx;
    await audit.record(db, tenantId, { type, ...auditActor(actor), subjectUserId: targetUserId, details: { entityId, ...details } });
    await appendEvent(db, tenantId, type, { entityId, userId: targetUserId, ...details, actor });
  }

  return {
    async list(ctx: CallContext, entityId: string): Promise<{ total: number; data: EntityMemberDto[] }> {
      const { tenantId } = ctx;
      await access.require(tenantId, entityId, ctx, 'view');
      const members = await repo.listMembers(tenantId, entityId);
      const data = await Promise.all(members.map((m) => toDto(tenantId, m)));
      return { total: data.length, data };
    },

    async add(ctx: CallContext, entityId: string, input: AddMemberInput): Promise<EntityMemberDto> {
      const { tenantId } = ctx;
      const permissions: Permission[] = input.permissions ?? ['view'];
      return tx(async (db) => {
        const granter = await access.require(tenantId, entityId, ctx, 'manage_users', db, true);
        if (permissions.includes('owner')) requireOwnerFor(granter, 'owner');
        if (!(await users.findRow(tenantId, input.userId, db))) throw EntityErrors.userNotFound();
        const now = clock.now();
        const by = ctx.actor.id;
        if (!(await repo.insertMember(tenantId, { entityId, userId: input.userId, addedBy: by, createdAt: now }, db))) throw EntityErrors.alreadyMember();
        for (const permission of permissions) await repo.grant(tenantId, entityId, input.userId, permission, by, now, db);
        await change(db, ctx, 'entity.member_added', entityId, input.userId, { permissions: sortPermissions(permissions) });
        return toDto(tenantId, (await repo.findMember(tenantId, entityId, input.userId, db))!, db);
      });
    },

    /** A member may leave by themself; removing another takes manage_users (and owner for an owner). */
    async remove(ctx: CallContext, entityId: string, targetUserId: string): Promise<{ entityId: string; userId: string; removed: true }> {
      const { tenantId } = ctx;
      return tx(async (db) => {
        const self = ctx.userId === targetUserId;
        const granter = await access.require(tenantId, entityId, ctx, self ? null : 'manage_users', db, true);
        const target = await repo.findMember(tenantId, entityId, targetUserId, db);
        if (!target) throw EntityErrors.memberNotFound();
        if (target.permissions.includes('owner')) {
          if (!self) requireOwnerFor(granter, 'owner-target');
          if ((await repo.countOwners(tenantId, entityId, db)) <= 1) throw EntityErrors.lastOwner();
        }
        await repo.deleteMember(tenantId, entityId, targetUserId, db);
        await change(db, ctx, 'entity.member_removed', entityId, targetUserId, { permissions: sortPermissions(target.permissions) });
        return { entityId, userId: targetUserId, removed: true as const };
      });
    },

    /** Idempotent: granting a held permission answers the member unchanged (and records nothing). */
    async grant(ctx: CallContext, entityId: string, targetUserId: string, permission: Permission): Promise<EntityMemberDto> {
      const { tenantId } = ctx;
      return tx(async (db) => {
        const granter = await access.require(tenantId, entityId, ctx, 'manage_users', db, true);
        requireOwnerFor(granter, permission);
        const target = await repo.findMember(tenantId, entityId, targetUserId, db);
        if (!target) throw EntityErrors.memberNotFound();
        if (await repo.grant(tenantId, entityId, targetUserId, permission, ctx.actor.id, clock.now(), db)) {
          await change(db, ctx, 'entity.permission_granted', entityId, targetUserId, { permission });
        }
        return toDto(tenantId, (await repo.findMember(tenantId, entityId, targetUserId, db))!, db);
      });
    },

    /** Idempotent too; the last owner keeps `owner` (409). */
    async revoke(ctx: CallContext, entityId: string, targetUserId: string, permission: Permission): Promise<EntityMemberDto> {
      const { tenantId } = ctx;
      return tx(async (db) => {
        const granter = await access.require(tenantId, entityId, ctx, 'manage_users', db, true);
        requireOwnerFor(granter, permission);
        const target = await repo.findMember(tenantId, entityId, targetUserId, db);
        if (!target) throw EntityErrors.memberNotFound();
        if (permission === 'owner' && target.permissions.includes('owner') && (await repo.countOwners(tenantId, entityId, db)) <= 1) {
          throw EntityErrors.lastOwner();
        }
        if (await repo.revoke(tenantId, entityId, targetUserId, permission, db)) {
          await change(db, ctx, 'entity.permission_revoked', entityId, targetUserId, { permission });
        }
        return toDto(tenantId, (await repo.findMember(tenantId, entityId, targetUserId, db))!, db);
      });
    },
  };
}

export type MembersService = ReturnType<typeof createMembersService>;
