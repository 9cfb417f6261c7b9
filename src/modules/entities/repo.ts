import { and, asc, count, eq, exists, inArray } from 'drizzle-orm';
import type { DbOrTx } from '../../platform/db/client.js';
import type { PageParams } from '../../platform/http/pagination.js';
import type { Permission } from './permissions.js';
import { entities, entityMemberPermissions, entityMembers, type EntityMemberRow, type EntityRow } from './table.js';

export interface MemberWithPermissions extends EntityMemberRow {
  permissions: Permission[];
}

/** Entities, their members and the members' permissions. Every query is scoped by tenant. */
export function createEntitiesRepo(db: DbOrTx) {
  const memberOf = (tenantId: string, userId: string) =>
    db
      .select({ one: entityMembers.userId })
      .from(entityMembers)
      .where(and(eq(entityMembers.tenantId, tenantId), eq(entityMembers.entityId, entities.id), eq(entityMembers.userId, userId)));
  const listWhere = (tenantId: string, userId?: string) =>
    userId ? and(eq(entities.tenantId, tenantId), exists(memberOf(tenantId, userId))) : eq(entities.tenantId, tenantId);

  return {
    async insertEntity(tenantId: string, row: Omit<EntityRow, 'tenantId'>, tx: DbOrTx = db): Promise<EntityRow> {
      const [created] = await tx.insert(entities).values({ ...row, tenantId }).returning();
      return created!;
    },

    /** With `lock`, the row is locked for the transaction: every membership change of an entity takes it first. */
    async findEntity(tenantId: string, id: string, tx: DbOrTx = db, lock = false): Promise<EntityRow | undefined> {
      const query = tx.select().from(entities).where(and(eq(entities.tenantId, tenantId), eq(entities.id, id))).limit(1);
      const [row] = lock ? await query.for('update') : await query;
      return row;
    },

    async updateEntity(tenantId: string, id: string, changes: Partial<Pick<EntityRow, 'metadata' | 'updatedAt'>>, tx: DbOrTx = db): Promise<EntityRow> {
      const [row] = await tx.update(entities).set(changes).where(and(eq(entities.tenantId, tenantId), eq(entities.id, id))).returning();
      return row!;
    },

    async countEntities(tenantId: string, userId?: string): Promise<number> {
      const [row] = await db.select({ n: count() }).from(entities).where(listWhere(tenantId, userId));
      return Number(row?.n ?? 0);
    },

    /** Oldest first (ids are time ordered). */
    async listEntities(tenantId: string, userId: string | undefined, page: PageParams): Promise<EntityRow[]> {
      return db.select().from(entities).where(listWhere(tenantId, userId)).orderBy(asc(entities.id)).limit(page.limit).offset(page.offset);
    },

    /** False when the user already is a member. */
    async insertMember(tenantId: string, row: Omit<EntityMemberRow, 'tenantId'>, tx: DbOrTx = db): Promise<boolean> {
      const inserted = await tx.insert(entityMembers).values({ ...row, tenantId }).onConflictDoNothing().returning({ userId: entityMembers.userId });
      return inserted.length === 1;
    },

    async deleteMember(tenantId: string, entityId: string, userId: string, tx: DbOrTx = db): Promise<void> {
      await tx
        .delete(entityMemberPermissions)
        .where(and(eq(entityMemberPermissions.tenantId, tenantId), eq(entityMemberPermissions.entityId, entityId), eq(entityMemberPermissions.userId, userId)));
      await tx.delete(entityMembers).where(and(eq(entityMembers.tenantId, tenantId), eq(entityMembers.entityId, entityId), eq(entityMembers.userId, userId)));
    },

    async findMember(tenantId: string, entityId: string, userId: string, tx: DbOrTx = db): Promise<MemberWithPermissions | undefined> {
      const [member] = await tx
        .select()
        .from(entityMembers)
        .where(and(eq(entityMembers.tenantId, tenantId), eq(entityMembers.entityId, entityId), eq(entityMembers.userId, userId)))
        .limit(1);
      if (!member) return undefined;
      const rows = await tx
        .select({ permission: entityMemberPermissions.permission })
        .from(entityMemberPermissions)
        .where(and(eq(entityMemberPermissions.tenantId, tenantId), eq(entityMemberPermissions.entityId, entityId), eq(entityMemberPermissions.userId, userId)));
      return { ...member, permissions: rows.map((r) => r.permission) };
    },

    /** Every member with their permissions, oldest membership first (an entity has few members). */
    async listMembers(tenantId: string, entityId: string, tx: DbOrTx = db): Promise<MemberWithPermissions[]> {
      const members = await tx
        .select()
        .from(entityMembers)
        .where(and(eq(entityMembers.tenantId, tenantId), eq(entityMembers.entityId, entityId)))
        .orderBy(asc(entityMembers.createdAt), asc(entityMembers.userId));
      if (members.length === 0) return [];
      const grants = await tx
        .select()
        .from(entityMemberPermissions)
        .where(
          and(
            eq(entityMemberPermissions.tenantId, tenantId),
            eq(entityMemberPermissions.entityId, entityId),
            inArray(entityMemberPermissions.userId, members.map((m) => m.userId)),
          ),
        );
      return members.map((m) => ({ ...m, permissions: grants.filter((g) => g.userId === m.userId).map((g) => g.permission) }));
    },

    /** True when the permission was added, false when the member already held it. */
    async grant(tenantId: string, entityId: string, userId: string, permission: Permission, by: string | null, now: Date, tx: DbOrTx = db): Promise<boolean> {
      const inserted = await tx
        .insert(entityMemberPermissions)
        .values({ tenantId, entityId, userId, permission, grantedBy: by, createdAt: now })
        .onConflictDoNothing()
        .returning({ p: entityMemberPermissions.permission });
      return inserted.length === 1;
    },

    async revoke(tenantId: string, entityId: string, userId: string, permission: Permission, tx: DbOrTx = db): Promise<boolean> {
      const deleted = await tx
        .delete(entityMemberPermissions)
        .where(
          and(
            eq(entityMemberPermissions.tenantId, tenantId),
            eq(entityMemberPermissions.entityId, entityId),
            eq(entityMemberPermissions.userId, userId),
            eq(entityMemberPermissions.permission, permission),
          ),
        )
        .returning({ p: entityMemberPermissions.permission });
      return deleted.length === 1;
    },

    async countOwners(tenantId: string, entityId: string, tx: DbOrTx = db): Promise<number> {
      const [row] = await tx
        .select({ n: count() })
        .from(entityMemberPermissions)
        .where(and(eq(entityMemberPermissions.tenantId, tenantId), eq(entityMemberPermissions.entityId, entityId), eq(entityMemberPermissions.permission, 'owner')));
      return Number(row?.n ?? 0);
    },
  };
}

export type EntitiesRepo = ReturnType<typeof createEntitiesRepo>;
